// An update killed halfway loses no container: the next start repairs what the names record.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { waitFor } from '../../helpers/env.js';
import { pullImage, pushImage, removeContainers, runContainer, testPrefix } from '../../helpers/images.js';
import { QUICK_STOP_CMD, containerNames, tidewatchFor } from './fixtures/setup.js';
import { runningOn, scenario } from '../../helpers/scenarios.js';

const CHILD = fileURLToPath(new URL('./fixtures/update-child.ts', import.meta.url));
const HOUR = 3600 * 1_000_000_000;

// The same guarantees when independent chains are replaced side by side (--update-concurrency 4).
for (const concurrency of [1, 4]) {
const suffix = concurrency === 1 ? '' : ` (update concurrency ${concurrency})`;
t.test(`SIGKILL while the new container is being proven, then a fresh start${suffix}`, async (t) => {
  const s = await scenario(t, concurrency === 1 ? 'docker-killed' : `docker-killed-c${concurrency}`);
  if (!s) return;
  const { env, engine, prefix } = s;

  const { repo, name, image: v1, container: old } = await runningOn(s, 'app', { run: { env: ['KEEP=1'] } });
  // The new image's health check never runs within the grace period: the child waits in the proof.
  await pushImage({
    registry: env.registry,
    repo,
    marker: 'v2',
    cmd: QUICK_STOP_CMD,
    healthcheck: { Test: ['CMD', '/bin/true'], Interval: HOUR, StartPeriod: HOUR },
  });

  // The child runs TypeScript the way tap runs this process: the same Node flags and loaders (package.json "tap").
  const child = spawn(process.execPath, [...process.execArgv, CHILD], {
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: '1', TW_DOCKER_HOST: env.dockerHost, TW_NAMES: `${prefix}-.*`, TW_GRACE_MS: '60000', TW_UPDATE_CONCURRENCY: String(concurrency) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  t.teardown(() => void child.kill('SIGKILL'));

  // The child's start (TypeScript transpiled on the fly) is slow on a loaded machine: the wait below
  // counts from its run's start, not from the spawn.
  await waitFor(async () => output.includes('run started'), 180_000).catch((err: Error) => {
    throw new Error(`${err.message}\nchild output:\n${output}`);
  });
  // The point of no return: the old container is aside and stopped, the new one runs under the name.
  await waitFor(async () => {
    const names = await containerNames(engine, prefix);
    if (!names.some((n) => n.startsWith(`${name}--tidewatch-old-`))) return false;
    const holder = await engine.getContainer(name).inspect().catch(() => undefined);
    return holder !== undefined && holder.Id !== old.id && holder.State.Running;
  }, 60_000).catch((err: Error) => {
    throw new Error(`${err.message}\nchild output:\n${output}`);
  });
  const oldState = await engine.getContainer(old.id).inspect();
  t.notOk(oldState.State.Running, 'the old container was stopped before the new one started');
  child.kill('SIGKILL');
  await exited;
  t.notMatch(output, /run finished/, 'the child never finished its run');

  const { tw } = await tidewatchFor(env, prefix);
  await tw.close();
  const now = await engine.getContainer(name).inspect();
  t.equal(now.Id, old.id, 'the old container is back under its name');
  t.ok(now.State.Running, 'running as before');
  t.ok(now.Config.Env.includes('KEEP=1'));
  t.same(await containerNames(engine, prefix), [name], 'nothing left renamed, staged or duplicated');
});
}

t.test('a fresh start restores what a run left aside, stopped or staged', async (t) => {
  const s = await scenario(t, 'docker-repair');
  if (!s) return;
  const { env, engine, prefix } = s;
  const v1 = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'v1', cmd: QUICK_STOP_CMD });
  await pullImage(engine, v1.ref);

  // Killed right after the rename: aside, still running, the new one staged.
  const a = await runContainer(engine, { name: `${prefix}-a--tidewatch-old-000000000000-running`, image: v1.ref });
  await engine.getContainer(a.id).rename({ name: `${prefix}-a--tidewatch-old-${a.id.slice(0, 12)}-running` });
  await runContainer(engine, { name: `${prefix}-a--tidewatch-new-${a.id.slice(0, 12)}`, image: v1.ref, start: false });
  // A dependent stopped before its dependency was replaced.
  const b = await runContainer(engine, { name: `${prefix}-b-tmp`, image: v1.ref });
  await engine.getContainer(b.id).rename({ name: `${prefix}-b--tidewatch-old-${b.id.slice(0, 12)}-running` });
  await engine.getContainer(b.id).stop({ t: 5 });
  // A container that was stopped before the run: restored, not started.
  const c = await runContainer(engine, { name: `${prefix}-c-tmp`, image: v1.ref, start: false });
  await engine.getContainer(c.id).rename({ name: `${prefix}-c--tidewatch-old-${c.id.slice(0, 12)}-stopped` });
  // Outside this instance's names: not touched.
  const other = testPrefix('docker-repair-other');
  const d = await runContainer(engine, { name: `${other}-d`, image: v1.ref, start: false });
  t.teardown(() => removeContainers(engine, other));
  await engine.getContainer(d.id).rename({ name: `${other}-d--tidewatch-old-${d.id.slice(0, 12)}-running` });

  const { tw } = await tidewatchFor(env, prefix);
  await tw.close();
  t.same(await containerNames(engine, prefix), [`${prefix}-a`, `${prefix}-b`, `${prefix}-c`]);
  t.ok((await engine.getContainer(`${prefix}-a`).inspect()).State.Running);
  t.ok((await engine.getContainer(`${prefix}-b`).inspect()).State.Running, 'the stopped dependent runs again');
  t.notOk((await engine.getContainer(`${prefix}-c`).inspect()).State.Running, 'a container that was stopped stays stopped');
  t.same(await containerNames(engine, other), [`${other}-d--tidewatch-old-${d.id.slice(0, 12)}-running`]);
});
