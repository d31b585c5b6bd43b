// Benchmark (not a test): Tidewatch replacing N stale containers against the same pulls, stops,
// removals, creates and starts done by the docker CLI in a shell loop, on the private test engine.
//
//   bash scripts/test-env.sh up
//   TS_NODE_TRANSPILE_ONLY=1 node --import=@tapjs/typescript/import bench/update-replace.ts \
//     [--containers 20] [--rounds 3] [--grace-ms 0] [--docker /usr/bin/docker] [--update-concurrency 1]
//
// `--containers 50 --update-concurrency 4` is the parallel run (docs/performance.md#parallel-updates):
// 50 independent stale containers replaced four at a time, target <= 0.4x the sequential CLI loop.
//
// Each round starts from N containers on v1 of N distinct images with v2 pushed (all stale) and v2
// absent from the engine, so both sides really pull. Tidewatch's time is one `update()`: discovery,
// the registry digest checks, pulls and the safe replacement (staging, renames, the proof with
// `--grace-ms`, default 0 so that both sides do the same work; the grace period is a deliberate wait).
// The images' main process exits on SIGTERM, so neither side waits out a stop timeout.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { createTidewatch } from '../core/index.js';
import { dockerPlugin } from '../plugins/docker/index.js';
import { registryPlugin } from '../plugins/registry/index.js';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix, type PushedImage } from '../test/helpers/images.js';
import { QUICK_STOP_CMD } from '../test/helpers/scenarios.js';
import { argument, median } from './cli.js';
import { describeMachineCpu, measureMachineCpu, type MachineCpu } from './machine-cpu.js';

const run = promisify(execFile);

const COUNT = Number(argument('containers', '20'));
const ROUNDS = Number(argument('rounds', '3'));
const GRACE_MS = Number(argument('grace-ms', '0'));
const UPDATE_CONCURRENCY = Number(argument('update-concurrency', '1'));
const TARGET_RATIO = UPDATE_CONCURRENCY > 1 ? 0.4 : 1.3;
const DOCKER_CLI = argument('docker', existsSync('/usr/bin/docker') ? '/usr/bin/docker' : 'docker');

interface Env {
  dockerSocket: string;
  dockerHost: string;
  registry: string;
}

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as Env;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-replace');

interface Fleet {
  readonly v1: PushedImage[];
  readonly v2: PushedImage[];
}

const containerName = (i: number) => `${prefix}-c${String(i).padStart(2, '0')}`;

async function pushFleet(): Promise<Fleet> {
  const v1: PushedImage[] = [];
  const v2: PushedImage[] = [];
  for (let i = 0; i < COUNT; i++) {
    const repo = `${prefix}/app${i}`;
    v1.push(await pushImage({ registry: env.registry, repo, tag: 'v1', marker: `v1-${i}`, cmd: QUICK_STOP_CMD }));
    v2.push(await pushImage({ registry: env.registry, repo, tag: 'v2', marker: `v2-${i}`, cmd: QUICK_STOP_CMD }));
  }
  return { v1, v2 };
}

/**
 * N containers running `:live` tagged as v1 (locally and in the registry), then `:live` in the registry
 * moved to v2 and the v2 image removed from the engine: every container is stale, every pull is real.
 */
async function prepareRound(fleet: Fleet): Promise<void> {
  await removeContainers(engine, prefix);
  for (let i = 0; i < COUNT; i++) {
    const v1 = fleet.v1[i] as PushedImage;
    await engine.getImage(`${env.registry}/${v1.repo}:live`).remove({ force: true }).catch(() => undefined);
    await engine.getImage((fleet.v2[i] as PushedImage).configDigest).remove({ force: true }).catch(() => undefined);
    await pushImage({ registry: env.registry, repo: v1.repo, tag: 'live', marker: `v1-${i}`, cmd: QUICK_STOP_CMD });
    await pullImage(engine, `${env.registry}/${v1.repo}:live`);
    const container = await engine.createContainer({
      name: containerName(i),
      Image: `${env.registry}/${v1.repo}:live`,
      Env: ['FOO=bar'],
      Labels: { 'bench.index': String(i) },
      HostConfig: { NetworkMode: 'none', RestartPolicy: { Name: 'unless-stopped' } },
    });
    await container.start();
  }
  for (let i = 0; i < COUNT; i++) {
    const v1 = fleet.v1[i] as PushedImage;
    await pushImage({ registry: env.registry, repo: v1.repo, tag: 'live', marker: `v2-${i}`, cmd: QUICK_STOP_CMD });
  }
}

/** The machine's CPU during each Tidewatch side: the engine's own work bounds how fast any client can be. */
const tidewatchCpu: MachineCpu[] = [];

async function timeTidewatch(): Promise<number> {
  const tw = await createTidewatch({
    updateConcurrency: UPDATE_CONCURRENCY,
    plugins: [
      { plugin: dockerPlugin, options: { host: env.dockerHost, names: [`${prefix}-.*`], gracePeriodMs: GRACE_MS, stopTimeoutMs: 30_000 } },
      { plugin: registryPlugin, options: { tlsSkip: true } },
    ],
  });
  try {
    const started = performance.now();
    const cpu = measureMachineCpu();
    const report = await tw.update();
    const elapsed = performance.now() - started;
    tidewatchCpu.push(cpu());
    if (report.summary.updated !== COUNT) throw new Error(`tidewatch updated ${report.summary.updated} of ${COUNT}: ${JSON.stringify(report.results.filter((r) => r.outcome !== 'updated'))}`);
    return elapsed;
  } finally {
    await tw.close();
  }
}

async function timeCli(fleet: Fleet): Promise<number> {
  const host = `unix://${env.dockerSocket}`;
  const steps = fleet.v1.map((v1, i) => {
    const ref = `${env.registry}/${v1.repo}:live`;
    const name = containerName(i);
    return [
      `"$D" -H ${host} pull -q ${ref} >/dev/null`,
      `"$D" -H ${host} stop -t 30 ${name} >/dev/null`,
      `"$D" -H ${host} rm ${name} >/dev/null`,
      `"$D" -H ${host} create --name ${name} --network none --restart unless-stopped -e FOO=bar -l bench.index=${i} ${ref} >/dev/null`,
      `"$D" -H ${host} start ${name} >/dev/null`,
    ].join(' && ');
  });
  const script = `set -e\n${steps.join('\n')}\n`;
  const started = performance.now();
  await run('bash', ['-c', script], { env: { ...process.env, D: DOCKER_CLI }, maxBuffer: 16 * 1024 * 1024 });
  return performance.now() - started;
}

async function assertAllOnNewImage(fleet: Fleet): Promise<void> {
  for (let i = 0; i < COUNT; i++) {
    const info = await engine.getContainer(containerName(i)).inspect();
    if (info.Image !== (fleet.v2[i] as PushedImage).configDigest || !info.State.Running) {
      throw new Error(`${containerName(i)} is not running v2 after the round`);
    }
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function main(): Promise<void> {
  console.log(`replacing ${COUNT} stale containers, ${ROUNDS} rounds, grace period ${GRACE_MS} ms, update concurrency ${UPDATE_CONCURRENCY}, CLI ${DOCKER_CLI}`);
  const fleet = await pushFleet();
  const tidewatch: number[] = [];
  const cli: number[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate who goes first so neither side always meets a warmer engine.
      const order = round % 2 === 1 ? (['tidewatch', 'cli'] as const) : (['cli', 'tidewatch'] as const);
      for (const side of order) {
        await prepareRound(fleet);
        const ms = side === 'tidewatch' ? await timeTidewatch() : await timeCli(fleet);
        await assertAllOnNewImage(fleet);
        (side === 'tidewatch' ? tidewatch : cli).push(ms);
        const cpu = side === 'tidewatch' ? `  (${describeMachineCpu(tidewatchCpu.at(-1) as MachineCpu)})` : '';
        console.log(`round ${round} ${side.padEnd(9)} ${seconds(ms)}${cpu}`);
      }
    }
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
  const ratio = median(tidewatch) / median(cli);
  console.log(`median tidewatch ${seconds(median(tidewatch))}, docker CLI ${seconds(median(cli))}`);
  console.log(`ratio ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO.toFixed(2)}x): ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'}`);
  // What the engine, the registry and the kernel spent beside Tidewatch, spread over every core: no
  // client of this engine could finish sooner on this machine.
  const othersFloor = median(tidewatchCpu.map((cpu) => cpu.othersFloorMs));
  console.log(`machine floor: the engine's own work needs at least ${seconds(othersFloor)} here (${(othersFloor / median(cli)).toFixed(2)}x the CLI loop)`);
}

await main();
