// Run modes through the binary: --run-once, scheduled runs, and the update endpoint taking periodic
// runs over unless --http-api-periodic-polls.
import t from 'tap';
import { docker, requireEnv, waitFor, type TestEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { runBinary, startService } from '../helpers/service.js';

const QUICK_STOP_CMD = ['/bin/sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done'];
const TOKEN = 'e2e-schedule-token-0123456789';

/** A running container on v1 with v2 already pushed: stale. Returns the new image's id once pulled. */
async function staleContainer(env: TestEnv, prefix: string, name: string) {
  const engine = docker(env);
  const repo = `${prefix}/${name}`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  await pullImage(engine, v1.ref);
  const container = await runContainer(engine, { name: `${prefix}-${name}`, image: v1.ref });
  const v2 = await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD });
  return { id: container.id, name: `${prefix}-${name}`, newConfigDigest: v2.configDigest };
}

const runningImage = async (env: TestEnv, name: string) => (await docker(env).getContainer(name).inspect()).Image;

t.test('--run-once updates and exits 0', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const prefix = testPrefix('e2e-once');
  t.teardown(async () => {
    await removeContainers(docker(env), prefix);
    await removeImages(docker(env), prefix);
  });
  const stale = await staleContainer(env, prefix, 'app');
  const res = await runBinary(['--host', env.dockerHost, '--run-once', '--update-grace-period', '1s', `${prefix}-.*`]);
  t.equal(res.code, 0, res.stderr);
  t.match(res.stdout, /run-once finished/);
  t.equal(await runningImage(env, stale.name), stale.newConfigDigest, 'updated to the new image');
});

t.test('a schedule runs updates; the update endpoint turns them off unless periodic polls are asked for', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const prefix = testPrefix('e2e-schedule');
  t.teardown(async () => {
    await removeContainers(docker(env), prefix);
    await removeImages(docker(env), prefix);
  });
  const common = ['--host', env.dockerHost, '--schedule', '* * * * * *', '--update-grace-period', '1s', '--http-api-token', TOKEN];

  const apiOnly = await staleContainer(env, prefix, 'api-only');
  const quiet = await startService([...common, '--http-api-endpoints', 'update', apiOnly.name]);
  await new Promise((r) => setTimeout(r, 3500));
  await quiet.stop();
  t.ok(quiet.logs.some((l) => /periodic updates are off/.test(String(l['msg']))), 'the log says why');
  t.not(await runningImage(env, apiOnly.name), apiOnly.newConfigDigest, 'no periodic update while the API owns updates');

  const polled = await staleContainer(env, prefix, 'polled');
  const service = await startService([...common, '--http-api-endpoints', 'update', '--http-api-periodic-polls', polled.name]);
  t.teardown(() => service.stop());
  await waitFor(async () => (await runningImage(env, polled.name)) === polled.newConfigDigest, 30_000);
  t.pass('with periodic polls the schedule updated the container');
  // The run logs its summary after the container has been swapped.
  await waitFor(() => service.logs.some((l) => l['msg'] === 'scheduled update finished' && l['updated'] === 1), 30_000);
  t.pass('and logged the run');
});
