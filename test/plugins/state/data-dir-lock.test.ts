// One Tidewatch per data directory (docs/state.md#one-process-per-data-directory), through the real binary:
// a second process on the same --data-dir exits 2 with one line naming the option and the holder; after
// the holder is SIGKILLed the next start takes the stale lock over; a clean stop leaves no lock. The
// self-update hand-over with the state plugin's DATA_DIR_HANDOVER: released, the successor (a real second
// process) starts; after the successor is gone, the lock is taken back. And the liveness rules: pid plus
// start time in the same PID namespace (a reused pid is not the holder), a lease across namespaces.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createTidewatch } from '../../../core/index.js';
import { DATA_DIR_HANDOVER } from '../../../contracts/index.js';
import { LEASE_MS, LOCK_FILE, containerIdOf, holderAlive, ownRecord, processState, startTicks, type LockRecord } from '../../../plugins/state/data-dir-lock.js';
import { statePlugin } from '../../../plugins/state/index.js';
import { runBinary, startService } from '../../helpers/service.js';

const dir = mkdtempSync(join(tmpdir(), 'tw-lock-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
// No engine is needed: the lock is taken before any plugin talks to one.
const ARGS = ['--host', 'unix:///nonexistent/docker.sock', '--http-api-endpoints', 'containers', '--http-api-token', 'lock-test-token-0123456789', '--data-dir', dir];
const lockFile = join(dir, LOCK_FILE);
const holderOf = () => JSON.parse(readFileSync(lockFile, 'utf8')) as LockRecord;

t.test('a second process is refused, a SIGKILLed holder is taken over, a clean stop releases', async (t) => {
  const first = await startService(ARGS);
  t.teardown(() => first.stop('SIGKILL'));
  t.equal(holderOf().pid, first.child.pid, 'the lock names the first process');

  const second = await runBinary(ARGS);
  t.equal(second.code, 2, 'the second process exits 2');
  const lines = second.stderr.trim().split('\n');
  t.equal(lines.length, 1, `one line: ${second.stderr}`);
  t.match(lines[0], `--data-dir ${dir} is in use by another Tidewatch (pid ${first.child.pid} on host `);

  await first.stop('SIGKILL');
  t.ok(existsSync(lockFile), 'a SIGKILL leaves the lock file');
  const third = await startService(ARGS);
  t.teardown(() => third.stop('SIGKILL'));
  t.equal(holderOf().pid, third.child.pid, 'the next start took the stale lock over');
  t.ok(third.logs.some((l) => l['msg'] === 'took over the data directory lock of a process that is gone'));
  t.equal(await third.stop('SIGTERM'), 0);
  t.notOk(existsSync(lockFile), 'a clean stop releases the lock');
});

t.test('the self-update hand-over: released for the successor, taken back when it is gone', async (t) => {
  const tw = await createTidewatch({ plugins: [{ plugin: statePlugin, options: { dataDir: dir } }] });
  t.teardown(() => tw.close());
  t.equal(holderOf().pid, process.pid);
  const refused = await runBinary(ARGS);
  t.equal(refused.code, 2, 'held: a successor could not start');
  await t.rejects(createTidewatch({ plugins: [{ plugin: statePlugin, options: { dataDir: dir } }] }), /is in use by another Tidewatch/, 'nor a second core in this process');

  const handover = tw.services.require(DATA_DIR_HANDOVER);
  await handover.handOver();
  t.notOk(existsSync(lockFile), 'handed over: no lock before the successor starts');
  const successor = await startService(ARGS);
  t.equal(holderOf().pid, successor.child.pid, 'the successor holds it');
  // The predecessor removes a successor that failed its proof, then takes the data directory back.
  await successor.stop('SIGKILL');
  await handover.takeBack();
  t.equal(holderOf().pid, process.pid, 'taken back');
  await tw.close();
  t.notOk(existsSync(lockFile), 'released at close');
});

t.test('liveness: pid and start time in one PID namespace, a lease across namespaces', async (t) => {
  const me = ownRecord();
  if (me.boot === undefined || me.pid_ns === undefined) {
    t.plan(0, 'no /proc: Linux only');
    return;
  }
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  t.teardown(() => child.kill('SIGKILL'));
  const pid = child.pid as number;
  const ticks = startTicks(pid);
  const record = (over: Partial<LockRecord>): LockRecord => ({ ...me, pid, start_ticks: ticks, nonce: 'x', ...over });
  const now = Date.now();
  t.ok(holderAlive(record({}), 0, me, now), 'a running holder is alive, however old its file');
  t.notOk(holderAlive(record({ start_ticks: (ticks ?? 0) + 1 }), now, me, now), 'the same pid started at another time is not the holder');
  t.notOk(holderAlive(record({ pid: process.pid }), now, me, now), 'this process (pid 1 again after a restart) is not the holder');
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  t.notOk(holderAlive(record({}), now, me, now), 'a dead holder is stale at once');
  const foreign = record({ pid_ns: 'pid:[1]' });
  t.ok(holderAlive(foreign, now - LEASE_MS + 1000, me, now), 'another namespace: alive while its heartbeat is fresh');
  t.notOk(holderAlive(foreign, now - LEASE_MS - 1, me, now), 'and stale once the lease ran out');
  const id = 'c'.repeat(64);
  t.equal(containerIdOf(`612 590 0:52 /docker/containers/${id}/hostname /etc/hostname rw - ext4 /dev/sda1 rw\n`), id);
  t.equal(containerIdOf(`1 2 0:1 /overlay-containers/${id}/userdata/hostname /etc/hostname rw - tmpfs tmpfs rw\n`), id, 'Podman');
  t.notOk(
    holderAlive({ ...foreign, container: id }, now, { ...me, container: id }, now),
    'its own container in another PID namespace (restarted after a crash): stale at once',
  );
  t.ok(holderAlive({ ...foreign, container: id }, now, { ...me, container: 'd'.repeat(64) }, now), 'another container sharing the volume: the lease decides');
});

t.test('liveness: a zombie holder (exited, not yet reaped) is gone, although kill(pid, 0) still succeeds', async (t) => {
  const me = ownRecord();
  if (me.boot === undefined || me.pid_ns === undefined) {
    t.plan(0, 'no /proc: Linux only');
    return;
  }
  // sh starts a short sleep in the background, prints its pid and becomes `sleep 120`, which never reaps it:
  // once the short sleep exits it stays a zombie, a child of the long one, until that is killed. The child must
  // still run when sh execs: a `true` that had already exited was reaped by sh itself on a loaded machine.
  const parent = spawn('sh', ['-c', 'sleep 2 & echo $!; exec sleep 120'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.teardown(() => parent.kill('SIGKILL'));
  const pid = await new Promise<number>((resolve, reject) => {
    parent.stdout.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
    parent.once('error', reject);
  });
  const deadline = Date.now() + 60_000;
  while (processState(pid) !== 'Z' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(processState(pid), 'Z', 'the holder is a zombie');
  t.doesNotThrow(() => process.kill(pid, 0), 'kill(pid, 0) succeeds on it');
  const now = Date.now();
  const record: LockRecord = { ...me, pid, start_ticks: startTicks(pid), nonce: 'zombie' };
  t.notOk(holderAlive(record, now, me, now), 'its lock is stale at once');
  t.ok(holderAlive({ ...record, pid: parent.pid as number, start_ticks: startTicks(parent.pid as number) }, now, me, now), 'its living parent is alive');
});
