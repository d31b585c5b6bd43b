// Start-up with many engines (docs/hosts.md#start-up): repairs run at most 8 engines at once, and an engine
// that accepts connections but never answers keeps start-up waiting 2 s at most, while the real engine's
// repair and readiness go on; the first discovery on that engine waits for its repair.
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createTidewatch } from '../../../core/index.js';
import { dockerPlugin } from '../../../plugins/docker/index.js';
import type { Engine } from '../../../plugins/docker/engine/engines.js';
import { repairAtStart, waitForRepairs } from '../../../plugins/docker/startup-repairs.js';
import { requireEnv, waitFor } from '../../helpers/env.js';
import { memoryLogger } from '../../helpers/memory-logger.js';
import { testPrefix } from '../../helpers/images.js';

function fakeEngine(repair: () => Promise<void>, inFlight?: Promise<void>): Engine {
  return { host: 'h', repair, repairInFlight: () => inFlight, repaired: false, lastKnown: [], runtime: { logger: memoryLogger() } } as unknown as Engine;
}

t.test('a stop waits for a repair still under way, and at most the bound for one that never ends', async (t) => {
  let finished = false;
  const slow = new Promise<void>((resolve) => setTimeout(() => ((finished = true), resolve()), 400));
  const logger = memoryLogger();
  await waitForRepairs([fakeEngine(async () => undefined, slow), fakeEngine(async () => undefined)], logger, 5000);
  t.ok(finished, 'the repair that outlasted start-up finished before the stop went on');
  t.equal(logger.lines.length, 0);
  const started = performance.now();
  await waitForRepairs([fakeEngine(async () => undefined, new Promise<void>(() => undefined))], logger, 300);
  const ms = performance.now() - started;
  t.ok(ms >= 290 && ms < 3000, `an engine that never answers holds the stop for the bound only (${ms.toFixed(0)} ms)`);
  t.match(logger.lines, [{ msg: /repair is still under way/ }]);
});

t.test('at most 8 repairs at once; a slow one keeps its slot for the wait only', async (t) => {
  let active = 0;
  let most = 0;
  const done: string[] = [];
  let started = performance.now();
  const engines = Array.from({ length: 30 }, (_, i) =>
    fakeEngine(async () => {
      // Engine 0 never answers: once waited for, it no longer counts against the bound. The others take 20 ms.
      if (i === 0) return new Promise<void>(() => undefined);
      active++;
      most = Math.max(most, active + (performance.now() - started < 300 ? 1 : 0));
      await new Promise((resolve) => setTimeout(resolve, 20));
      active--;
      done.push(String(i));
    }),
  );
  started = performance.now();
  await repairAtStart(engines, { concurrency: 8, waitMs: 300 });
  const ms = performance.now() - started;
  t.equal(most, 8, 'eight at once (the slow one among them while it is waited for), never more');
  t.equal(done.length, 29, 'every other engine was repaired');
  t.ok(ms < 300 + 29 * 20, `the slow engine held one slot for the wait only (${ms.toFixed(0)} ms)`);
});

t.test('an engine that never answers does not hold up start-up or the real engine', { timeout: 120_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const dir = await mkdtemp(join(tmpdir(), 'tw-hosts-'));
  const sockets: Socket[] = [];
  const silent: Server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(join(dir, 'silent.sock'), resolve));
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  const real = Array.from({ length: 12 }, (_, i) => `unix://${join(dir, `e${i}.sock`)}`);
  for (let i = 0; i < real.length; i++) await symlink(env.dockerSocket, join(dir, `e${i}.sock`));
  const logger = memoryLogger();
  const started = performance.now();
  // Scoped to a prefix of its own: an unscoped instance's start-up repair on the shared engine would put back a
  // replacement another test file has under way at that moment (docs/stopping.md#start-up-repair).
  const tw = await createTidewatch({ logger, plugins: [{ plugin: dockerPlugin, options: { names: [`${testPrefix('startup-hosts')}-.*`], host: [`unix://${join(dir, 'silent.sock')}`, ...real] } }] });
  const ms = performance.now() - started;
  t.teardown(() => tw.close());
  t.ok(ms < 30_000, `start-up done in ${ms.toFixed(0)} ms with an engine that never answers`);
  // Start-up no longer waits for the repairs (docs/hosts.md#start-up): they go on, the silent one named after 2 s.
  await waitFor(() => sockets.length > 0, 10_000);
  t.ok(sockets.length > 0, 'the silent engine was asked');
  await waitFor(() => logger.lines.some((l) => /engine slow to answer at start/.test(l.msg ?? '')), 10_000).catch(() => undefined);
  t.ok(logger.lines.some((l) => /engine slow to answer at start/.test(l.msg ?? '')), 'the slow engine is named in the log');
  await t.rejects(tw.health.ready(3000), /silent\.sock/, 'readiness names the silent engine alone');
  t.ok(logger.lines.filter((l) => l.level === 'error').length === 0, 'no errors from the engines that answer');
});
