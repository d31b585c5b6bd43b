// Push, then sign, with webhooks and `--verify-signatures enforce` (docs/webhooks.md#signatures-arriving),
// through the built binary, a real Distribution registry that notifies Tidewatch (Debian's docker-registry)
// and the real cosign 3: the push's run finds the image unsigned and skips it; the signature's push (cosign's
// referrers tag `sha256-<hex>`) re-checks the image it signs, past the cached `unsigned` verdict, and the
// update lands without a manual run. Periodic polls are off (the update endpoint takes runs over).
import t from 'tap';
import { cosignIn, cosignSign, generateKeyPair } from '../helpers/cosign-cli.js';
import { waitFor } from '../helpers/env.js';
import { pullImage, pushImage, runContainer } from '../helpers/images.js';
import { freePort, startNotifyingRegistry } from '../helpers/notifying-registry.js';
import { QUICK_STOP_CMD, scenario } from '../helpers/scenarios.js';
import { startService } from '../helpers/service.js';

const TOKEN = 'e2e-push-sign-token-0123456789';

t.test('a signature pushed after its image lands the update by itself', async (t) => {
  const s = await scenario(t, 'e2e-push-sign');
  if (!s) return;
  const cosign = cosignIn(t, s.env);
  if (!cosign) return;
  const key = await generateKeyPair(cosign, 'release');
  const port = await freePort();
  const service = await startService([
    '--host', s.env.dockerHost,
    '--http-api-port', String(port),
    '--http-api-endpoints', 'hooks,update',
    '--http-api-token', 'e2e-push-sign-main-token',
    '--webhook', `reg=distribution,token=${TOKEN},action=update`,
    '--verify-signatures', 'enforce',
    '--cosign-key', key.publicKey,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  const registry = await startNotifyingRegistry({ url: `http://127.0.0.1:${port}/v1/hooks/reg`, token: TOKEN, timeout: '2s', threshold: 1, backoff: '1s' });
  t.teardown(() => registry.stop());

  const repo = `${s.prefix}/app`;
  const v1 = await pushImage({ registry: registry.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
  await pullImage(s.engine, v1.ref);
  const name = `${s.prefix}-app`;
  await runContainer(s.engine, { name, image: v1.ref });

  const v2 = await pushImage({ registry: registry.registry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD });
  const skipped = await waitFor(
    () => service.logs.find((l) => l['container'] === name && typeof l['reason'] === 'string' && /^signature unsigned/.test(l['reason'] as string)),
    30_000,
  );
  t.ok(skipped, "the push's run found v2 unsigned and skipped it");
  t.equal((await s.engine.getContainer(name).inspect()).Image, v1.configDigest, 'still on v1');

  await cosignSign(cosign, key, `${registry.registry}/${repo}@${v2.digest}`);
  try {
    await waitFor(async () => (await s.engine.getContainer(name).inspect()).Image === v2.configDigest, 45_000, 250);
  } catch (err) {
    t.comment(`service log:\n${service.logs.slice(-30).map((l) => JSON.stringify(l)).join('\n')}`);
    throw err;
  }
  const info = await s.engine.getContainer(name).inspect();
  t.equal(info.State.Status, 'running');
  const image = await s.engine.getImage(info.Image).inspect();
  t.ok(image.RepoDigests.includes(`${registry.registry}/${repo}@${v2.digest}`), 'it runs the digest cosign signed');
  const run = service.logs.find((l) => l['msg'] === 'webhook: starting a targeted run' && Array.isArray(l['signed']));
  t.same(run?.['signed'], [v2.digest], "the signature's push started the run, naming the digest it signs");
  t.notOk(service.logs.some((l) => l['msg'] === 'scheduled updates enabled'), 'no periodic poll did it');
});
