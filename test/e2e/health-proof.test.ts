// The proof follows a health check's own timing (docs/replacement.md#proof): an image whose HEALTHCHECK has
// Docker's default timing (first probe after 30 s) is updated with the default grace period (10 s), where a
// fixed wait of the grace period used to roll it back at every run; an image whose check fails is rolled
// back as soon as Docker says `unhealthy`, long before the grace period is over.
import t from 'tap';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { runBinary } from '../helpers/service.js';

t.test("an image with a default-timing HEALTHCHECK is updated with the default grace period", async (t) => {
  const s = await scenario(t, 'e2e-health-default');
  if (!s) return;
  const app = await runningOn(s, 'app');
  // No Interval, Timeout, StartPeriod or Retries: Docker's 30s, 30s, 0s and 3.
  const v2 = await pushNext(s, app, { healthcheck: { Test: ['CMD', '/bin/true'] } });
  const started = Date.now();
  const run = await runBinary(['--host', s.env.dockerHost, '--run-once', '--stop-timeout', '2s', `${s.prefix}-.*`], {}, 300_000);
  const took = Date.now() - started;
  t.equal(run.code, 0, run.stderr);
  const now = await s.engine.getContainer(app.name).inspect();
  t.equal(now.Image, v2.configDigest, 'the new image runs');
  t.equal(now.State.Health?.Status, 'healthy', 'and is healthy');
  const proven = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['msg'] === 'new container proven');
  t.match(proven, { waited_ms: Number, why: /grace period and turned healthy: its health check \(start period 0s, interval 30s, timeout 30s, 3 retries\) decides within 3m30s/ }, 'the log says how long and why');
  // Docker counts the interval from the container's own start, a little before the start call returns, which is
  // where the proof's clock starts: the first probe can come a few milliseconds short of 30 s on that clock (under 30 000 ms,
  // rounded to 30.0 s, in a CI run here). Well past the 10 s grace period either way.
  t.ok((proven?.['waited_ms'] as number) >= 29_000, `it waited for the first probe, one interval after the start (${String(proven?.['waited_ms'])} ms)`);
  t.comment(`update of a default-timing health-checked container: ${(took / 1000).toFixed(1)} s in all, proof ${((proven?.['waited_ms'] as number) / 1000).toFixed(1)} s`);
});

t.test('a new image that turns unhealthy is rolled back at once, before the grace period ends', async (t) => {
  const s = await scenario(t, 'e2e-health-unhealthy');
  if (!s) return;
  const app = await runningOn(s, 'app');
  const second = 1_000_000_000;
  await pushNext(s, app, { healthcheck: { Test: ['CMD', '/bin/false'], Interval: second / 2, Timeout: second, Retries: 1 } });
  const started = Date.now();
  const run = await runBinary(['--host', s.env.dockerHost, '--run-once', '--update-grace-period', '1m', '--stop-timeout', '2s', `${s.prefix}-.*`], {}, 120_000);
  t.ok(Date.now() - started < 40_000, 'not the grace period of 1 minute');
  t.match(run.stdout, /new container turned unhealthy after/, 'the log says unhealthy');
  const now = await s.engine.getContainer(app.name).inspect();
  t.equal(now.Id, (await app.container.inspect()).Id, 'the old container is back');
  t.equal(now.Image, app.image.configDigest);
  t.ok(now.State.Running);
});
