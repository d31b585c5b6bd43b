// The heartbeat behind the image's HEALTHCHECK (docs/image.md, "Health"): the running service writes it,
// `tidewatch --health-check` judges it: fresh and ready is healthy; missing, stale or not ready is not.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createTidewatch, type TidewatchPlugin } from '../../core/index.js';
import { HEARTBEAT_MAX_AGE_MS, heartbeatProblem, startHeartbeat } from '../../server/heartbeat.js';
import { runBinary } from '../helpers/service.js';

const dir = mkdtempSync(join(tmpdir(), 'tidewatch-heartbeat-'));

function engine(state: { up: boolean }): TidewatchPlugin {
  return {
    name: 'engine',
    apply(core) {
      core.health.addReadinessCheck('engine', async () => {
        if (!state.up) throw new Error('connect ENOENT /var/run/docker.sock');
      });
    },
  };
}

t.test('the service writes fresh beats with its readiness, and removes the file when it stops', async (t) => {
  const state = { up: true };
  const tw = await createTidewatch({ plugins: [engine(state)] });
  t.teardown(() => tw.close());
  const path = join(dir, 'beat-1');
  const stop = startHeartbeat(tw, path);
  await t.resolves(waitForFile(path));
  const beat = JSON.parse(readFileSync(path, 'utf8')) as { pid: number; ready: boolean; at: string };
  t.equal(beat.pid, process.pid);
  t.equal(beat.ready, true);
  t.equal(await heartbeatProblem(path), undefined, 'healthy');
  await stop();
  t.match(await heartbeatProblem(path), /no heartbeat/, 'gone after stop');

  state.up = false;
  const stop2 = startHeartbeat(tw, path);
  await waitForFile(path);
  t.match(await heartbeatProblem(path), /not ready: engine: connect ENOENT/, 'an unreachable engine is unhealthy, and says why');
  await stop2();
});

t.test('stale, unreadable and missing beats are unhealthy', async (t) => {
  const path = join(dir, 'beat-2');
  t.match(await heartbeatProblem(path), /no heartbeat at/);
  writeFileSync(path, '{half');
  t.match(await heartbeatProblem(path), /unreadable/);
  const old = new Date(Date.now() - HEARTBEAT_MAX_AGE_MS - 1000).toISOString();
  writeFileSync(path, JSON.stringify({ pid: 1, at: old, ready: true }));
  t.match(await heartbeatProblem(path), /last heartbeat 3\d s ago/);
  writeFileSync(path, JSON.stringify({ pid: 1, at: new Date().toISOString(), ready: true }));
  t.equal(await heartbeatProblem(path), undefined);
});

t.test('tidewatch --health-check: exit 0 when healthy, 1 with the reason when not, 0 without a heartbeat file', async (t) => {
  const path = join(dir, 'beat-3');
  writeFileSync(path, JSON.stringify({ pid: 1, at: new Date().toISOString(), ready: true }));
  const healthy = await runBinary(['--health-check'], { TIDEWATCH_HEARTBEAT_FILE: path });
  t.equal(healthy.code, 0);
  writeFileSync(path, JSON.stringify({ pid: 1, at: new Date().toISOString(), ready: false, error: 'engine: no answer' }));
  const sick = await runBinary(['--health-check', '--heartbeat-file', path]);
  t.equal(sick.code, 1);
  t.match(sick.stderr, /unhealthy: not ready: engine: no answer/);
  const watchtowerWay = await runBinary(['--health-check']);
  t.equal(watchtowerWay.code, 0, 'no heartbeat file configured: always healthy, as Watchtower');
});

async function waitForFile(path: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      readFileSync(path);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error(`${path} never appeared`);
}
