// A third-party plugin loaded by path with --plugins taps checkStaleness and claims its targets.
import t from 'tap';
import { docker, requireEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, runContainer, testPrefix } from '../helpers/images.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-plugin-token-0123456789';

t.test('--plugins ./examples/label-staleness-plugin.js answers for labelled containers', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('e2e-plugin');
  t.teardown(() => removeContainers(engine, prefix));

  const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: prefix });
  await pullImage(engine, image.ref);
  const wanted = `sha256:${'ab'.repeat(32)}`;
  await runContainer(engine, { name: `${prefix}-pinned`, image: image.ref, labels: { 'example.pinned-digest': wanted } });
  await runContainer(engine, { name: `${prefix}-plain`, image: image.ref });

  let service: RunningService | undefined;
  t.teardown(async () => void (await service?.stop()));
  service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'check',
    '--http-api-token', TOKEN,
    '--plugins', './examples/label-staleness-plugin.js',
    `${prefix}-.*`,
  ]);
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200);
  const records = (res.body as { containers: { name: string; update_available: boolean; latest_digest?: string }[] }).containers;
  const pinned = records.find((r) => r.name === `${prefix}-pinned`);
  const plain = records.find((r) => r.name === `${prefix}-plain`);
  t.equal(pinned?.update_available, true, 'the plugin calls the pinned container stale');
  t.equal(pinned?.latest_digest, wanted, 'with the digest from its label: no registry would say that');
  t.equal(plain?.update_available, false, 'other containers go to the registry source');
  t.equal(plain?.latest_digest, image.digest);
});
