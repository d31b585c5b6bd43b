// Benchmark (not a test): volume snapshots (docs/snapshots.md#what-it-costs) on the private test engine.
//
//   bash scripts/test-env.sh up
//   TS_NODE_TRANSPILE_ONLY=1 node --import=@tapjs/typescript/import bench/snapshots.ts [--mib 1024] [--rounds 3] [--downtime-mib 100]
//
// 1. Snapshot throughput of a volume of `--mib` MiB (64 files of random bytes) through the Engine's archive API
//    (plugins/docker/replace/snapshot/take.ts: hashed, counted, fsynced, indexed) against the floor: `tar -cf` of
//    the same volume directory (the engine's, read directly: this bench runs as root beside the engine) on the same
//    disk, then `sync` of the file. Target: <= 1.3x the floor.
// 2. Restore throughput (snapshot/restore.ts: empty through the archive API, check, stream the tar back with its
//    sha256 checked) against `find -delete` then `tar -xf` of the same file into the same directory. Target <= 1.3x.
// 3. Added downtime of an update with a `--downtime-mib` volume: the time between the old container's stop
//    (State.FinishedAt) and the new one's start (State.StartedAt), labelled tidewatch.snapshot=volumes or not.
import { execFile } from 'node:child_process';
import { mkdtemp, readFileSync, rm } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { createTidewatch } from '../core/index.js';
import { dockerPlugin } from '../plugins/docker/index.js';
import { registryPlugin } from '../plugins/registry/index.js';
import { statePlugin } from '../plugins/state/index.js';
import { createDockerClient } from '../plugins/docker/engine/connect.js';
import { takeSnapshot } from '../plugins/docker/replace/snapshot/take.js';
import { restoreSnapshot } from '../plugins/docker/replace/snapshot/restore.js';
import { openStateStore } from '../plugins/state/store.js';
import { SnapshotService } from '../plugins/state/snapshot-service.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../test/helpers/images.js';
import { QUICK_STOP_CMD } from '../test/helpers/scenarios.js';
import { argument, median } from './cli.js';

const run = promisify(execFile);
const MIB = Number(argument('mib', '1024'));
const ROUNDS = Number(argument('rounds', '3'));
const DOWNTIME_MIB = Number(argument('downtime-mib', '100'));
const TARGET = 1.3;

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as { dockerSocket: string; dockerHost: string; registry: string };
const engine = new Docker({ socketPath: env.dockerSocket });
const client = createDockerClient({ host: env.dockerHost });
const prefix = testPrefix('bench-snap');
const tempDir = () => promisify(mkdtemp)(join(tmpdir(), 'tw-bench-snap-'));

async function sh(script: string): Promise<void> {
  await run('sh', ['-c', script], { maxBuffer: 1 << 20 });
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await fn();
  return performance.now() - began;
}

/** A stopped container with a volume of `mib` MiB of random bytes in 64 files; the volume's directory on the host. */
async function filledVolume(name: string, mib: number, image: string): Promise<{ id: string; volume: string; dir: string }> {
  const volume = `${prefix}-${name}`;
  const created = await engine.createVolume({ Name: volume });
  const dir = (created as unknown as { Mountpoint: string }).Mountpoint ?? (await engine.getVolume(volume).inspect()).Mountpoint;
  const per = Math.max(1, Math.floor(mib / 64));
  await sh(`for i in $(seq 1 64); do head -c ${per}M /dev/urandom > '${dir}'/f$i; done; mkdir -p '${dir}'/d && echo x > '${dir}'/d/small`);
  const container = await runContainer(engine, { name: `${prefix}-${name}`, image, start: false, hostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: '/data' }] } });
  return { id: container.id, volume, dir };
}

async function throughput(image: string): Promise<void> {
  const dataDir = await tempDir();
  const scratch = await tempDir();
  const store = await openStateStore({ dir: dataDir });
  const snapshots = new SnapshotService(store, { all: false, retention: ROUNDS + 1, maxBytes: 64 * 1024 ** 3, available: true }, store.logger);
  const { id, volume, dir } = await filledVolume('tp', MIB, image);
  const ours: number[] = [];
  const floor: number[] = [];
  const restores: number[] = [];
  const restoreFloor: number[] = [];
  let last;
  for (let round = 0; round < ROUNDS; round++) {
    const file = join(scratch, `floor-${round}.tar`);
    floor.push(await timed(() => sh(`tar -cf '${file}' -C '${dir}/..' _data && sync '${file}'`)));
    ours.push(await timed(async () => {
      last = await takeSnapshot(client, snapshots, id, [{ name: volume, destination: '/data' }], { container: 'tp', runId: `r${round}`, imageId: 'i' });
    }));
    restoreFloor.push(await timed(() => sh(`find '${dir}' -mindepth 1 -delete && tar -xf '${file}' -C '${dir}/..'`)));
    const record = last!;
    restores.push(await timed(() => restoreSnapshot(client, snapshots, id, record)));
    await rm(file, { force: true }, () => undefined);
  }
  const mibs = (ms: number) => ((MIB / ms) * 1000).toFixed(0);
  const o = median(ours), f = median(floor), r = median(restores), rf = median(restoreFloor);
  console.log(`snapshot of ${MIB} MiB: ${o.toFixed(0)} ms (${mibs(o)} MiB/s) vs tar ${f.toFixed(0)} ms (${mibs(f)} MiB/s): ${(o / f).toFixed(2)}x the floor (target <= ${TARGET}x) ${o / f <= TARGET ? 'OK' : 'OVER'}`);
  console.log(`restore of ${MIB} MiB: ${r.toFixed(0)} ms (${mibs(r)} MiB/s) vs find -delete + tar -x ${rf.toFixed(0)} ms (${mibs(rf)} MiB/s): ${(r / rf).toFixed(2)}x the floor (target <= ${TARGET}x) ${r / rf <= TARGET ? 'OK' : 'OVER'}`);
  console.log(`  samples (ms): snapshot ${ours.map((v) => v.toFixed(0)).join(' ')} | tar ${floor.map((v) => v.toFixed(0)).join(' ')} | restore ${restores.map((v) => v.toFixed(0)).join(' ')} | tar -x ${restoreFloor.map((v) => v.toFixed(0)).join(' ')}`);
  await store.close();
  await engine.getContainer(id).remove({ force: true });
  await engine.getVolume(volume).remove();
  await rm(dataDir, { recursive: true, force: true }, () => undefined);
  await rm(scratch, { recursive: true, force: true }, () => undefined);
}

/** ms between the old container's stop and the new one's start, for one update. */
async function downtime(labelled: boolean, round: number): Promise<number> {
  const repo = `${prefix}/dt${labelled ? 'l' : 'u'}${round}`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
  await pullImage(engine, v1.ref);
  const name = `${prefix}-dt-${labelled ? 'l' : 'u'}${round}`;
  const { volume } = await filledVolume(`dtv-${labelled ? 'l' : 'u'}${round}`, DOWNTIME_MIB, v1.ref);
  await engine.getContainer(`${prefix}-dtv-${labelled ? 'l' : 'u'}${round}`).remove({ force: true });
  await runContainer(engine, { name, image: v1.ref, labels: labelled ? { 'tidewatch.snapshot': 'volumes' } : {}, hostConfig: { Mounts: [{ Type: 'volume', Source: volume, Target: '/data' }] } });
  const old = await engine.getContainer(name).inspect();
  await pushImage({ registry: env.registry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD });
  const dataDir = await tempDir();
  const since = Math.floor(Date.now() / 1000) - 1;
  const tw = await createTidewatch({
    plugins: [
      { plugin: statePlugin, options: { dataDir } },
      { plugin: dockerPlugin, options: { host: env.dockerHost, names: [name], gracePeriodMs: 0, stopTimeoutMs: 30_000 } },
      { plugin: registryPlugin, options: { tlsSkip: true } },
    ],
  });
  try {
    const report = await tw.update();
    const result = report.results[0];
    if (result?.outcome !== 'updated' || (labelled && !result.snapshot)) throw new Error(`update: ${JSON.stringify(result)}`);
  } finally {
    await tw.close();
  }
  // The old container is removed by now: its stop and the new one's start are read from the engine's events.
  const fresh = (await engine.getContainer(name).inspect()).Id;
  const stream = (await engine.getEvents({ since, until: Math.ceil(Date.now() / 1000) + 1, filters: { type: ['container'] } })) as unknown as NodeJS.ReadableStream;
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  const events = text.trim().split('\n').map((line) => JSON.parse(line) as { id: string; status: string; timeNano: number });
  const stopped = (events.find((e) => e.id === old.Id && e.status === 'die')?.timeNano ?? NaN) / 1e6;
  const started = (events.find((e) => e.id === fresh && e.status === 'start')?.timeNano ?? NaN) / 1e6;
  await engine.getContainer(name).remove({ force: true });
  await engine.getVolume(volume).remove();
  await rm(dataDir, { recursive: true, force: true }, () => undefined);
  return Math.round(started - stopped);
}

async function main(): Promise<void> {
  const image = await pushImage({ registry: env.registry, repo: `${prefix}/base`, marker: 'base', cmd: QUICK_STOP_CMD });
  await pullImage(engine, image.ref);
  try {
    await throughput(image.ref);
    const plain: number[] = [];
    const snap: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      plain.push(await downtime(false, round));
      snap.push(await downtime(true, round));
    }
    const p = median(plain), s = median(snap);
    console.log(`update downtime with a ${DOWNTIME_MIB} MiB volume: ${p} ms without a snapshot, ${s} ms with one: +${s - p} ms (samples ${plain.join(' ')} | ${snap.join(' ')})`);
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
