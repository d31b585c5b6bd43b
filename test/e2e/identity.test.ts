// docs/state.md#identity through the real binary and engine: state belongs to the container Tidewatch acted
// on. Tidewatch's own replacements carry it (a rollback's new container is held); a container someone else
// creates under the same name starts with none: no rollback (404), no hold, no last check.
import t from 'tap';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { QUICK_STOP_CMD, pushNext, runningOn, scenario, type Scenario } from '../helpers/scenarios.js';
import { call, type RunningService } from '../helpers/service.js';
import { serveScenario, tempDir, type Teardown } from '../helpers/fixtures.js';

const TOKEN = 'e2e-identity-token-0123456789';

interface Container {
  name: string;
  id: string;
  image_id: string;
  checked_at?: string;
  held?: boolean;
  rollback_available?: boolean;
}

async function serve(t: Teardown, s: Scenario): Promise<RunningService> {
  return serveScenario(t, { host: s.env.dockerHost, prefix: s.prefix }, [
    '--http-api-endpoints', 'check,containers,update,audit,rollback', '--http-api-token', TOKEN,
    '--data-dir', await tempDir(t, 'identity'), '--update-grace-period', '1s', '--stop-timeout', '5s',
  ]);
}

const post = (service: RunningService, path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });

async function container(service: RunningService, name: string): Promise<Container | undefined> {
  const body = (await call(`${service.url}/v1/containers`, { token: TOKEN })).body as { containers: Container[] };
  return body.containers.find((c) => c.name === name);
}

t.test('a container recreated by hand under the same name has none of the old one\'s state', async (t) => {
  const s = await scenario(t, 'e2e-identity');
  if (!s) return;
  // `held` is rolled back (a hold); `updated` is updated (a previous image): each kind of state, then both replaced.
  const held = await runningOn(s, 'held');
  const updated = await runningOn(s, 'updated');
  await pushNext(s, held);
  await pushNext(s, updated);
  const service = await serve(t, s);

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 2 } });
  t.match(await container(service, updated.name), { rollback_available: true, checked_at: String }, 'updated: its previous image is known');
  const rolled = await post(service, `/v1/rollback?container=${held.name}`);
  t.equal(rolled.status, 200, rolled.text);
  t.match(await container(service, held.name), { held: true }, 'the rollback\'s new container inherits the hold');
  t.match((await post(service, `/v1/update?container=${held.name}`)).body, { summary: { updated: 0, skipped: 1 } }, 'and the hold skips it');

  // What people do to change a label or swap the application: remove it and run another under the name.
  const other = await pushImage({ registry: s.env.registry, repo: `${s.prefix}/other`, marker: `${s.prefix} other`, cmd: QUICK_STOP_CMD });
  await pullImage(s.engine, other.ref);
  for (const name of [held.name, updated.name]) {
    await s.engine.getContainer(name).remove({ force: true });
    await runContainer(s.engine, { name, image: other.ref });
  }
  for (const name of [held.name, updated.name]) {
    const mine = await container(service, name);
    t.ok(mine, `${name}: listed`);
    t.notOk(mine?.held, 'not held');
    t.notOk(mine?.rollback_available, 'nothing to roll back');
    t.notOk(mine?.checked_at, 'never checked: no last check of the other container');
  }

  const refused = await post(service, `/v1/rollback?container=${updated.name}`);
  t.equal(refused.status, 404, refused.text);
  t.match(refused.body, { error: /never updated by this Tidewatch/ });
  t.equal((await s.engine.getContainer(updated.name).inspect()).Config.Image, other.ref, 'the other application runs untouched');
  t.match((await post(service, `/v1/release?container=${held.name}`)).body, { released: false }, 'no hold to release');
});

interface Failed {
  digest: string;
  reason: string;
  failed_at: string;
}

t.test('a candidate that failed is tried once, then skipped with its reason until a newer one', async (t) => {
  const s = await scenario(t, 'e2e-identity-failed');
  if (!s) return;
  const app = await runningOn(s, 'app');
  const broken = await pushNext(s, app, { cmd: ['/bin/sh', '-c', 'exit 3'] });
  const service = await serve(t, s);
  const before = (await s.engine.getContainer(app.name).inspect()).Id;

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, failed: 1 } }, 'run 1: tried and rolled back');
  const remembered = (await container(service, app.name)) as Container & { failed_candidate?: Failed };
  t.match(remembered.failed_candidate, { digest: broken.digest, reason: String, failed_at: String }, '/v1/containers says which and why');

  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, failed: 0, skipped: 1 } }, 'run 2: not tried again');
  t.equal((await s.engine.getContainer(app.name).inspect()).Id, before, 'the container was not touched');
  const check = (await post(service, `/v1/check?container=${app.name}`)).body as { containers: { failed_candidate?: Failed }[] };
  t.match(check.containers[0]?.failed_candidate, { digest: broken.digest }, 'the check record says so too');
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 0, skipped: 1 } }, 'run 3: still not');
  const audit = (await call(`${service.url}/v1/audit?container=${app.name}`, { token: TOKEN })).body as { entries: { outcome: string; to?: { digest: string } }[] };
  t.same(audit.entries.map((e) => e.outcome), ['rolled_back', 'not_retried'], 'the audit trail says "not retried" once');
  t.equal(audit.entries[1]?.to?.digest, broken.digest, 'with the digest');

  const fixed = await pushNext(s, app, { marker: `${app.repo} v3` });
  t.match((await post(service, '/v1/update')).body, { summary: { updated: 1 } }, 'run 4: a newer candidate is tried');
  const now = (await container(service, app.name)) as Container & { failed_candidate?: Failed };
  t.notOk(now.failed_candidate, 'and the memory is gone');
  const running = await s.engine.getContainer(app.name).inspect();
  t.equal(running.Image, (await s.engine.getImage(fixed.ref).inspect()).Id, 'the newer candidate runs');
  t.ok(running.State.Running);
});

t.test('a person\'s targeted update tries a failed candidate again; release forgets it', async (t) => {
  const s = await scenario(t, 'e2e-identity-retry');
  if (!s) return;
  const app = await runningOn(s, 'app');
  await pushNext(s, app, { cmd: ['/bin/sh', '-c', 'exit 3'] });
  const service = await serve(t, s);
  t.match((await post(service, '/v1/update')).body, { summary: { failed: 1 } });
  t.match((await post(service, `/v1/update?container=${app.name}`)).body, { summary: { failed: 1, skipped: 0 } }, 'targeted: tried again');
  t.match((await post(service, '/v1/update')).body, { summary: { skipped: 1 } }, 'remembered again');
  t.match((await post(service, `/v1/release?container=${app.name}`)).body, { released: true });
  t.notOk(((await container(service, app.name)) as { failed_candidate?: Failed }).failed_candidate, 'forgotten');
  t.match((await post(service, '/v1/update')).body, { summary: { failed: 1 } }, 'tried once more after release');
});
