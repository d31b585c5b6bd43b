// Threat model row "/v1/rollouts requests" (docs/security.md#threat-model): who may read the fleet's rollouts and
// who may release a halt (a release sends the halted image on to every later stage). Against the real binary,
// two real engines and a real halted rollout: no token is 401, a viewer may read but not release (403, the
// rollout stays halted), a malformed id, limit or cursor is a 4xx JSON error, a body is refused with 413.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { docker, requireTwoEngines, secondDocker } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'sec-rollouts-token-0123456789';
const CMD = ['/bin/sh', '-c', "trap 'exit 0' TERM; if [ -n \"$FAIL_V2\" ] && [ -e /v2 ]; then exit 3; fi; sleep 3600 & wait"];

t.test('reading and releasing rollouts take their roles; bad input is refused', async (t) => {
  const env = await requireTwoEngines(t);
  if (!env) return;
  const prefix = testPrefix('sec-rollouts');
  const engines = [docker(env), secondDocker(env)];
  const dir = await mkdtemp(join(tmpdir(), 'tw-sec-rollouts-'));
  t.teardown(async () => {
    for (const engine of engines) {
      await removeContainers(engine, prefix);
      await removeImages(engine, prefix);
    }
    await rm(dir, { recursive: true, force: true });
  });
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: CMD });
  for (const [index, engine] of engines.entries()) {
    await pullImage(engine, v1.ref);
    await runContainer(engine, { name: `${prefix}-app`, image: v1.ref, cmd: CMD, env: index === 0 ? ['FAIL_V2=1'] : [] });
  }
  await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: CMD, files: { v2: 'yes' } });
  const service = await startService([
    '--host', `${env.dockerHost}?stage=1`,
    '--host', `${env.secondDockerHost}?tlsverify=1&cert-path=${env.secondCertPath}&stage=2`,
    '--update-grace-period', '2s', '--data-dir', dir,
    '--http-api-endpoints', 'update,rollouts,tokens', '--http-api-token', TOKEN, `${prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  const made = await fetch(`${service.url}/v1/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'watcher', role: 'viewer' }),
  });
  const viewer = ((await made.json()) as { token: string }).token;

  t.equal((await call(`${service.url}/v1/rollouts`)).status, 401, 'no token: 401');
  const listed = await call(`${service.url}/v1/rollouts`, { token: viewer });
  t.equal(listed.status, 200, 'a viewer reads them');
  const [halted] = (listed.body as { rollouts: { id: string; state: string }[] }).rollouts;
  t.equal(halted?.state, 'halted');

  const refused = await call(`${service.url}/v1/rollouts/${halted?.id}/release`, { method: 'POST', token: viewer });
  t.equal(refused.status, 403, 'a viewer may not release');
  t.match(refused.body, { error: 'role operator required' });
  t.equal((await call(`${service.url}/v1/rollouts/${halted?.id}/release`, { method: 'POST' })).status, 401, 'nor anyone without a token');
  const still = (await call(`${service.url}/v1/rollouts`, { token: TOKEN })).body as { rollouts: { state: string }[] };
  t.equal(still.rollouts[0]?.state, 'halted', 'the halt stands');

  for (const id of ['..%2F..%2Fetc', 'ABCDEF0123456789', `${'a'.repeat(90)}`, '0123456789abcdef%00']) {
    const res = await call(`${service.url}/v1/rollouts/${id}/release`, { method: 'POST', token: TOKEN });
    t.equal(res.status, 404, `id ${id.slice(0, 20)}: 404 before any lookup`);
    t.notOk(res.text.includes('a'.repeat(65)), `the answer names at most 64 characters of the id: ${res.text.slice(0, 200)}`);
  }
  // Longer than the API's parameter limit: refused before any route runs.
  t.equal((await call(`${service.url}/v1/rollouts/${'a'.repeat(5000)}/release`, { method: 'POST', token: TOKEN })).status, 414);
  for (const query of ['limit=1001', 'limit=-1', 'limit=abc', 'cursor=', 'cursor=not-a-cursor', 'cursor=%FF%FE']) {
    const res = await call(`${service.url}/v1/rollouts?${query}`, { token: TOKEN });
    t.equal(res.status, 400, `${query}: 400`);
    t.match(res.body, { code: /^TW_ERR_/ }, 'a coded JSON error');
  }
  const big = await fetch(`${service.url}/v1/rollouts/${halted?.id}/release`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ pad: 'x'.repeat(4096) }),
  });
  t.equal(big.status, 413, 'a body above the route\'s limit is refused before it is read');
  const after = (await call(`${service.url}/v1/rollouts`, { token: TOKEN })).body as { rollouts: { state: string }[] };
  t.equal(after.rollouts[0]?.state, 'halted', 'nothing above released it');
});
