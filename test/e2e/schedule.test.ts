// Run modes through the binary: --run-once, scheduled runs, and the update endpoint taking periodic
// runs over unless --http-api-periodic-polls.
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { pushNext, runningOn, scenario, type Scenario } from '../helpers/scenarios.js';
import { runBinary, startService } from '../helpers/service.js';

const TOKEN = 'e2e-schedule-token-0123456789';

/** A running container on v1 with v2 already pushed: stale. */
async function staleContainer(s: Scenario, name: string) {
  const running = await runningOn(s, name);
  const next = await pushNext(s, running);
  return { name: running.name, newConfigDigest: next.configDigest };
}

const runningImage = async (s: Scenario, name: string) => (await s.engine.getContainer(name).inspect()).Image;

t.test('--run-once updates and exits 0', async (t) => {
  const s = await scenario(t, 'e2e-once');
  if (!s) return;
  const stale = await staleContainer(s, 'app');
  const res = await runBinary(['--host', s.env.dockerHost, '--run-once', '--update-grace-period', '1s', `${s.prefix}-.*`]);
  t.equal(res.code, 0, res.stderr);
  t.match(res.stdout, /run-once finished/);
  t.equal(await runningImage(s, stale.name), stale.newConfigDigest, 'updated to the new image');
});

t.test('a schedule runs updates; the update endpoint turns them off unless periodic polls are asked for', async (t) => {
  const s = await scenario(t, 'e2e-schedule');
  if (!s) return;
  const common = ['--host', s.env.dockerHost, '--schedule', '* * * * * *', '--update-grace-period', '1s', '--http-api-token', TOKEN];

  const apiOnly = await staleContainer(s, 'api-only');
  const quiet = await startService([...common, '--http-api-endpoints', 'update', apiOnly.name]);
  await new Promise((r) => setTimeout(r, 3500));
  await quiet.stop();
  const why = quiet.logs.filter((l) => /periodic updates are off/.test(String(l['msg'])));
  t.equal(why.length, 1, 'one start-up line says why');
  t.match(why[0], { level: 40, schedule: '* * * * * *', msg: /--http-api-periodic-polls/ }, 'a warning naming the option and the schedule it keeps');
  t.not(await runningImage(s, apiOnly.name), apiOnly.newConfigDigest, 'no periodic update while the API owns updates');

  const polled = await staleContainer(s, 'polled');
  const service = await startService([...common, '--http-api-endpoints', 'update', '--http-api-periodic-polls', polled.name]);
  t.teardown(() => service.stop());
  await waitFor(async () => (await runningImage(s, polled.name)) === polled.newConfigDigest, 30_000);
  t.pass('with periodic polls the schedule updated the container');
  // The run logs its summary after the container has been swapped.
  await waitFor(() => service.logs.some((l) => l['msg'] === 'scheduled update finished' && l['updated'] === 1), 30_000);
  t.pass('and logged the run');
});
