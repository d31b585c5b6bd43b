// Never leave a container down when the process is stopped (docs/stopping.md): SIGTERM to --run-once in
// the middle of a replacement rolls it back and exits 0; and after a SIGKILL in the middle of an
// API-started run, the next --run-once repairs and then updates a db <- web chain sharing one image,
// leaving both running (never `created`) under their own names.
import t from 'tap';
import type Docker from 'dockerode';
import { waitFor } from '../helpers/env.js';
import { pushImage, pullImage, runContainer, type ImageSpec } from '../helpers/images.js';
import { QUICK_STOP_CMD, scenario, type Scenario } from '../helpers/scenarios.js';
import { call, spawnBinary, startService } from '../helpers/service.js';

const TOKEN = 'e2e-stopping-token-0123456789';
const HOUR_NS = 3600 * 1_000_000_000;

/** Containers of this test whose name says a replacement is in progress. */
async function leftovers(engine: Docker, prefix: string): Promise<string[]> {
  const all = await engine.listContainers({ all: true });
  return all.flatMap((c) => c.Names).filter((n) => n.includes(prefix) && n.includes('--tidewatch-'));
}

async function stateOf(engine: Docker, name: string): Promise<{ id: string; state: string; image: string } | undefined> {
  const info = await engine.getContainer(name).inspect().catch(() => undefined);
  return info && { id: info.Id, state: info.State.Status, image: info.Image };
}

/** A db <- web chain on one image (web depends on db), both running v1; v2 pushed with `next`. */
async function chain(s: Scenario, next: Partial<ImageSpec>) {
  const repo = `${s.prefix}/shared`;
  const v1 = await pushImage({ registry: s.env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
  await pullImage(s.engine, v1.ref);
  const db = await runContainer(s.engine, { name: `${s.prefix}-db`, image: v1.ref });
  const web = await runContainer(s.engine, { name: `${s.prefix}-web`, image: v1.ref, labels: { 'tidewatch.depends-on': `${s.prefix}-db` } });
  const v2 = await pushImage({ registry: s.env.registry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD, ...next });
  return { v1, v2, db: db.id, web: web.id };
}

t.test('SIGTERM to --run-once in the middle of a replacement rolls it back and exits 0', async (t) => {
  const s = await scenario(t, 'e2e-stop-once');
  if (!s) return;
  const { env, engine, prefix } = s;
  // The new image never turns healthy within the grace period: the run sits proving db's successor.
  const c = await chain(s, { healthcheck: { Test: ['CMD', '/bin/true'], Interval: HOUR_NS, StartPeriod: HOUR_NS } });
  const run = spawnBinary(['--host', env.dockerHost, '--run-once', '--stop-timeout', '2s', '--update-grace-period', '1m', `${prefix}-.*`]);
  t.teardown(() => void run.child.kill('SIGKILL'));
  await waitFor(async () => {
    const db = await stateOf(engine, `${prefix}-db`);
    return db !== undefined && db.id !== c.db && db.state === 'running';
  }, 30_000);
  const signalled = Date.now();
  run.child.kill('SIGTERM');
  const exit = await run.exited;
  t.equal(exit.code, 0, `exits 0 (stderr: ${exit.stderr.slice(-300)})`);
  t.ok(Date.now() - signalled < 10_000, 'within docker stop\'s default 10 s');
  for (const [name, id] of [['db', c.db], ['web', c.web]] as const) {
    const now = await stateOf(engine, `${prefix}-${name}`);
    t.match(now, { id, state: 'running', image: c.v1.configDigest }, `${name}: the old container, running, under its name`);
  }
  t.same(await leftovers(engine, prefix), [], 'nothing staged or moved aside is left');
});

t.test('after a SIGKILL mid-run, --run-once repairs, then updates the chain: both running on the new image', async (t) => {
  const s = await scenario(t, 'e2e-stop-kill');
  if (!s) return;
  const { env, engine, prefix } = s;
  // A slow-starting healthy image keeps the first service in db's proof long enough to kill it there.
  const c = await chain(s, {
    healthcheck: { Test: ['CMD', '/bin/true'], Interval: 500_000_000, StartPeriod: 30 * 1_000_000_000 },
  });
  const first = await startService([
    '--host', env.dockerHost, '--http-api-endpoints', 'update', '--http-api-token', TOKEN,
    '--update-grace-period', '1m', '--stop-timeout', '2s', `${prefix}-.*`,
  ]);
  t.teardown(() => first.stop('SIGKILL'));
  void call(`${first.url}/v1/update?async=true`, { method: 'POST', token: TOKEN }).catch(() => undefined);
  // db staged and swapped, web moved aside: the moment of the report.
  await waitFor(async () => {
    const names = await leftovers(engine, prefix);
    return names.some((n) => n.includes(`${prefix}-web--tidewatch-old-`)) || undefined;
  }, 30_000);
  await first.stop('SIGKILL');

  const second = spawnBinary(['--host', env.dockerHost, '--run-once', '--stop-timeout', '2s', '--update-grace-period', '0s', `${prefix}-.*`]);
  const exit = await second.exited;
  t.equal(exit.code, 0, `the repairing run-once succeeds (stderr: ${exit.stderr.slice(-300)})`);
  for (const name of ['db', 'web']) {
    const now = await stateOf(engine, `${prefix}-${name}`);
    t.match(now, { state: 'running', image: c.v2.configDigest }, `${name}: running on the new image, never left created`);
  }
  t.same(await leftovers(engine, prefix), [], 'nothing staged or moved aside is left');
});
