// Candidates through gates through the built binary against the real engine and registry
// (docs/tags.md#candidates-and-gates): under a tag policy every gate judges each candidate, and the update
// applied is the highest that passes them all. Signed by the real cosign 3 (Debian sid's): an unsigned 1.4.0
// does not block a signed 1.3.1; with a cooldown, a too-young 1.2.0 does not block an old-enough 1.1.0; when
// no candidate passes, the container stays and the log says how many were tried.
import t from 'tap';
import { cosignIn, cosignSign, generateKeyPair } from '../helpers/cosign-cli.js';
import { pushNext, runningOn, scenario, type RunningOn, type Scenario } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-candidates-token-0123456789';
const DAY = 24 * 3600 * 1000;

async function service(t: Parameters<typeof scenario>[0], s: Scenario, extra: string[]): Promise<RunningService> {
  const started = await startService([
    '--host', s.env.dockerHost,
    '--http-api-endpoints', 'update',
    '--http-api-token', TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    ...extra,
    `${s.prefix}-.*`,
  ]);
  t.teardown(() => started.stop('SIGKILL'));
  return started;
}

async function runsTag(s: Scenario, running: RunningOn, tag: string, digest: string): Promise<boolean> {
  const info = await s.engine.getContainer(running.name).inspect();
  const image = await s.engine.getImage(info.Image).inspect();
  return info.Config.Image === `${s.env.registry}/${running.repo}:${tag}` && image.RepoDigests.includes(`${s.env.registry}/${running.repo}@${digest}`);
}

const minor = { image: { tag: '1.3.0' }, run: { labels: { 'tidewatch.tag.policy': 'minor' } } };

t.test('enforce: a signed 1.3.1 is applied when the higher 1.4.0 is unsigned', async (t) => {
  const s = await scenario(t, 'e2e-cand-sig');
  if (!s) return;
  const cosign = cosignIn(t, s.env);
  if (!cosign) return;
  const key = await generateKeyPair(cosign, 'release');
  const picked = await runningOn(s, 'picked', minor);
  const signed = await pushNext(s, picked, { tag: '1.3.1', marker: `${picked.repo} 1.3.1` });
  await pushNext(s, picked, { tag: '1.4.0', marker: `${picked.repo} 1.4.0` });
  await cosignSign(cosign, key, `${s.env.registry}/${picked.repo}@${signed.digest}`);
  // Nothing signed at all: both candidates are refused, and the container stays.
  const none = await runningOn(s, 'none', minor);
  await pushNext(s, none, { tag: '1.3.1', marker: `${none.repo} 1.3.1` });
  await pushNext(s, none, { tag: '1.4.0', marker: `${none.repo} 1.4.0` });
  const before = (await s.engine.getContainer(none.name).inspect()).Image;

  const tw = await service(t, s, ['--verify-signatures', 'enforce', '--cosign-key', key.publicKey]);
  const update = await call(`${tw.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(update.status, 200);
  t.match(update.body, { summary: { updated: 1, failed: 0, skipped: 1 } });
  t.ok(await runsTag(s, picked, '1.3.1', signed.digest), 'the container runs 1.3.1, by the digest cosign signed');
  t.equal((await s.engine.getContainer(none.name).inspect()).Image, before, 'nothing signed: the container keeps its image');
  const refused = tw.logs.find((l) => l['msg'] === 'no update candidate passed the gates' && l['container'] === none.name);
  t.same(refused?.['candidates'], ['1.4.0', '1.3.1'], 'both candidates judged, highest first');
  t.equal(refused?.['tried'], 2);
});

t.test('cooldown: a too-young 1.2.0 gives way to a 1.1.0 old enough', async (t) => {
  const s = await scenario(t, 'e2e-cand-cool');
  if (!s) return;
  const running = await runningOn(s, 'cool', { image: { tag: '1.0.0' }, run: { labels: { 'tidewatch.tag.policy': 'minor' } } });
  const old = await pushNext(s, running, { tag: '1.1.0', marker: `${running.repo} 1.1.0`, created: new Date(Date.now() - 30 * DAY) });
  await pushNext(s, running, { tag: '1.2.0', marker: `${running.repo} 1.2.0`, created: new Date(Date.now() - 3600_000) });
  const tw = await service(t, s, ['--cooldown-delay', '7d']);
  const update = await call(`${tw.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(update.body, { summary: { updated: 1, failed: 0, skipped: 0 } });
  t.ok(await runsTag(s, running, '1.1.0', old.digest), 'the container runs 1.1.0, the candidate old enough');
});
