// The end-of-run invariant on the real engine: a container that was running when the run began and is
// down when it ends (here stopped behind the runtime's back, as a stop requested by a killed process can
// complete late) is started again and reported failed, never updated (docs/stopping.md#the-invariant).
import t from 'tap';
import { pushNext, runningOn, scenario } from '../../helpers/scenarios.js';
import { tidewatchFor } from './fixtures/setup.js';

t.test('a container down at the end of a run is started again and reported failed', async (t) => {
  const s = await scenario(t, 'docker-invariant');
  if (!s) return;
  const { env, engine, prefix } = s;
  const quiet = await runningOn(s, 'quiet');
  const app = await runningOn(s, 'app');
  await pushNext(s, app);

  const { tw, events } = await tidewatchFor(env, prefix, { gracePeriodMs: 0 });
  t.teardown(() => tw.close());
  // Before the runtime applies the stale one, the other container stops behind its back.
  tw.hooks.apply.tapPromise({ name: 'test-stopper', stage: -1 }, async (plan) => {
    if (plan.target.name === app.name) await engine.getContainer(quiet.name).stop({ t: 1 });
    return undefined;
  });
  const report = await tw.update();

  t.match(report.summary, { updated: 1, failed: 1 });
  const result = report.results.find((r) => r.target.name === quiet.name);
  t.match(result, { outcome: 'failed', error: /left exited under its name after the run; started again/ });
  const now = await engine.getContainer(quiet.name).inspect();
  t.equal(now.Id, quiet.container.id, 'the same container');
  t.ok(now.State.Running, 'running again');
  t.ok(events.some((e) => e.type === 'update_failed' && e.data.container === quiet.name), 'update_failed says so');
  t.ok((await engine.getContainer(app.name).inspect()).State.Running, 'the updated one runs too');
});
