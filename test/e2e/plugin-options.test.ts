// A third-party plugin's options reach it from the config file (plugins: [{ path, options }]) and from its
// own flag, `--help` lists them, and its source shows its own update_source in /v1/check.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { docker, requireEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, runContainer, testPrefix } from '../helpers/images.js';
import { call, runBinary, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-plugin-options-token-0123456789';
const PLUGIN = './examples/label-staleness-plugin.js';

interface Record {
  name: string;
  update_available: boolean;
  update_source: string;
  latest_digest?: string;
}

t.test('--help lists the options a third-party plugin declares', async (t) => {
  const res = await runBinary(['--plugins', PLUGIN, '--help']);
  t.equal(res.code, 0);
  t.match(res.stdout, /Label staleness \(example plugin\):/);
  t.match(res.stdout, /--label-staleness-label <value>\s+Container label holding the digest/);
  t.match(res.stdout, /env: TIDEWATCH_LABEL_STALENESS_LABEL, WATCHTOWER_LABEL_STALENESS_LABEL; default: example\.pinned-digest/);
  const without = await runBinary(['--help']);
  t.notMatch(without.stdout, /label-staleness-label/, 'not listed when the plugin is not loaded');
});

t.test('a flag the plugin does not declare exits 2 naming it', async (t) => {
  const unknown = await runBinary(['--plugins', PLUGIN, '--label-staleness-lable', 'x']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /unknown flag --label-staleness-lable/);
});

t.test('options from the config file; the source has its own update_source', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('e2e-plugopt');
  t.teardown(() => removeContainers(engine, prefix));
  const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: prefix });
  await pullImage(engine, image.ref);
  const wanted = `sha256:${'cd'.repeat(32)}`;
  await runContainer(engine, { name: `${prefix}-custom`, image: image.ref, labels: { 'acme.release-digest': wanted } });
  await runContainer(engine, { name: `${prefix}-default-label`, image: image.ref, labels: { 'example.pinned-digest': wanted } });

  const dir = t.testdir({});
  const configFile = join(dir, 'tidewatch.yaml');
  writeFileSync(
    configFile,
    [
      `host: ${env.dockerHost}`,
      'http-api-endpoints: check',
      `http-api-token: ${TOKEN}`,
      'plugins:',
      `  - path: ${PLUGIN}`,
      '    options:',
      '      label: acme.release-digest',
      '',
    ].join('\n'),
  );
  let service: RunningService | undefined;
  t.teardown(async () => void (await service?.stop()));
  service = await startService(['--config', configFile, `${prefix}-.*`]);
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200);
  const records = (res.body as { containers: Record[] }).containers;
  const custom = records.find((r) => r.name === `${prefix}-custom`);
  const other = records.find((r) => r.name === `${prefix}-default-label`);
  t.match(custom, { update_available: true, update_source: 'label-staleness', latest_digest: wanted }, 'the configured label is read');
  t.match(other, { update_available: false, update_source: 'registry', latest_digest: image.digest }, 'the default label is not, with the option set');
});
