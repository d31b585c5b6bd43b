// Benchmark (not a test): the service's footprint (docs/performance.md#footprint). Idle RSS of the real
// binary with the default plugin set (no HTTP API), with `--http-api-endpoints all`, and after checks of
// 1000 containers; wall time of `tidewatch --help` and from spawn to the first 200 of `/startupz`.
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:memory -- [--containers 1000] [--images 50] [--runs 5] [--only state|idle] [--baseline DIR] [--with-db]
//
// With state (docs/state.md): idle RSS and spawn to /startupz with a data directory holding 1,000
// containers' last checks and 10,000 audit entries, against the same without --data-dir, alternated in
// the same run. Targets: within 10 MB and within 0.2 s. `--only state` measures that alone.
//
// `--only idle`: idle RSS alone (default plugins, all endpoints, the bare-node floor) with the spread of
// RUNS rounds; with `--baseline DIR` (another checkout, built: `git worktree add DIR main && cd DIR &&
// npm ci`) the same for its binary, alternated with this one's, so a change is measured against the build
// before it on the same machine at the same time.
//
// Targets: idle RSS <= 58 MB (default plugins), <= 78 MB (all endpoints), <= 100 MB after the checks;
// --help <= 0.25 s. Idle is measured once the process has settled: IDLE_AFTER_MS after start-up, when V8's
// memory reducer (it starts 8 s after the last allocation burst) has given back start-up's garbage. The
// figure 2 s after start-up is printed beside it. RSS after the checks is read 2 s after the last one.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import Docker from 'dockerode';
import { mapBounded } from '../core/index.js';
import type { TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix, type PushedImage } from '../test/helpers/images.js';
import { BIN, NODE_FLAGS, REPO_ROOT, call, runBinary, startService } from '../test/helpers/service.js';
import { argument, median, sleep } from './cli.js';
import { bigStateDir } from './state-fixture.js';

const CONTAINERS = Number(argument('containers', '1000'));
const IMAGES = Number(argument('images', '50'));
const RUNS = Number(argument('runs', '5'));
const ONLY = argument('only', '');
/** A second checkout, built, measured beside this one in `--only idle` (the build before a change). */
const BASELINE = argument('baseline', '');
/** `--with-db`: the idle services of `--only idle` keep their state in a data directory (the database open). */
const WITH_DB = process.argv.includes('--with-db');
const TOKEN = 'bench-memory-token-0123456789';
const MB = 1024 * 1024;
const IDLE_AFTER_MS = 15_000;

interface Idle {
  /** 2 s after start-up. */
  readonly early: number;
  /** IDLE_AFTER_MS after start-up. */
  readonly settled: number;
}

async function idleOf(pid: number): Promise<Idle> {
  await sleep(2000);
  const early = memoryOf(pid).rss;
  await sleep(IDLE_AFTER_MS - 2000);
  return { early, settled: memoryOf(pid).rss };
}

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-memory');

/** VmRSS and VmHWM (peak) of a process, in MB. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: (kb('VmRSS') * 1024) / MB, peak: (kb('VmHWM') * 1024) / MB };
}

const ALL_ENDPOINTS = ['--http-api-endpoints', 'all', '--http-api-token', TOKEN, '--http-api-events-token', `${TOKEN}-events`, '--http-api-host', '127.0.0.1', '--http-api-port', '0', '--http-api-rate-limit', '0', '--no-startup-message'];

/**
 * The binary `bin` (this checkout's, or `--baseline`'s) idle once the schedule is set up: the default
 * plugin set, plus `extra` (all endpoints).
 */
async function idleService(bin: string, extra: string[] = []): Promise<Idle> {
  // `--with-db`: each service with a data directory of its own, so the state database is open (docs/state.md).
  const dir = WITH_DB ? await mkdtemp(join(tmpdir(), 'tw-bench-memory-')) : undefined;
  try {
    return await idleServiceIn(bin, [...extra, ...(dir ? ['--data-dir', dir] : [])]);
  } finally {
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}

async function idleServiceIn(bin: string, extra: string[]): Promise<Idle> {
  const child = spawn(process.execPath, [...NODE_FLAGS, bin, '--host', env.dockerHost, '--interval', '24h', ...extra, `${prefix}-.*`], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  try {
    const started = Date.now();
    // Started: the schedule is set up, or (all endpoints: the update endpoint turns periodic runs off) the API listens.
    while (!out.includes('scheduled updates enabled') && !out.includes('HTTP API listening')) {
      if (Date.now() - started > 60_000 || child.exitCode !== null) throw new Error(`the service did not start:\n${out}`);
      await sleep(50);
    }
    return await idleOf(child.pid as number);
  } finally {
    child.kill('SIGTERM');
  }
}


async function idleAllEndpoints(extra: string[] = []): Promise<Idle> {
  const service = await startService(['--host', env.dockerHost, '--http-api-endpoints', 'all', '--http-api-token', TOKEN, '--http-api-events-token', `${TOKEN}-events`, '--no-startup-message', ...extra, `${prefix}-.*`]);
  try {
    return await idleOf(service.child.pid as number);
  } finally {
    await service.stop('SIGTERM');
  }
}

/** Wall time of `<bin> --help`, spawned as the tests spawn the binary. */
async function helpWallOf(bin: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [...NODE_FLAGS, bin, '--help'], { stdio: 'ignore' });
  const code = await new Promise<number | null>((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`${bin} --help exited ${code}`);
  return (performance.now() - started) / 1000;
}

const spread = (values: number[], digits = 1) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

/**
 * Idle RSS alone: the bare-node floor, then for this checkout and the baseline in turn the default
 * plugins and all endpoints, RUNS rounds, so that both builds see the same machine.
 */
async function idleComparison(): Promise<void> {
  const sides = [{ name: 'this checkout', bin: BIN }];
  if (BASELINE) sides.push({ name: `baseline ${BASELINE}`, bin: join(resolve(BASELINE), 'bin/tidewatch.js') });
  const bare: number[] = [];
  const samples = sides.map(() => ({ help: [] as number[], idle: [] as number[], all: [] as number[], early: [] as number[], allEarly: [] as number[] }));
  for (let i = 0; i < RUNS; i++) {
    bare.push(await idleBareNode());
    for (const [k, side] of sides.entries()) {
      const sample = samples[k] as (typeof samples)[number];
      sample.help.push(await helpWallOf(side.bin));
      const idle = await idleService(side.bin);
      const all = await idleService(side.bin, ALL_ENDPOINTS);
      sample.idle.push(idle.settled);
      sample.early.push(idle.early);
      sample.all.push(all.settled);
      sample.allEarly.push(all.early);
    }
  }
  const line = (what: string, value: string) => console.log(`${what.padEnd(44)} ${value}`);
  const floor = median(bare);
  line(`floor: bare node idle RSS, median (min–max)`, `${spread(bare)} MB`);
  for (const [k, side] of sides.entries()) {
    const sample = samples[k] as (typeof samples)[number];
    console.log(`${side.name}: median (min–max) of ${RUNS}, ${IDLE_AFTER_MS / 1000} s after start-up`);
    line('  --help wall', `${spread(sample.help, 3)} s (target <= 0.25 s)`);
    line('  idle RSS, default plugins', `${spread(sample.idle)} MB (target <= 58 MB: ${median(sample.idle) <= 58 ? 'met' : 'NOT met'}), ${(median(sample.idle) / floor).toFixed(2)}x the floor`);
    line('    2 s after start-up', `${spread(sample.early)} MB`);
    line('  idle RSS, all endpoints', `${spread(sample.all)} MB (target <= 78 MB: ${median(sample.all) <= 78 ? 'met' : 'NOT met'})`);
    line('    2 s after start-up', `${spread(sample.allEarly)} MB`);
  }
}

async function helpWall(): Promise<number> {
  const started = performance.now();
  const result = await runBinary(['--help']);
  if (result.code !== 0) throw new Error(`--help exited ${result.code}`);
  return (performance.now() - started) / 1000;
}

/** From spawn to the first 200 of /startupz (the port is learnt from the listening log line). */
async function startupWall(extra: string[] = []): Promise<number> {
  const started = performance.now();
  const service = await startService(['--host', env.dockerHost, '--http-api-endpoints', 'all', '--http-api-token', TOKEN, '--http-api-events-token', `${TOKEN}-events`, '--no-startup-message', ...extra, `${prefix}-.*`]);
  try {
    for (;;) {
      const res = await fetch(`${service.url}/startupz`).catch(() => undefined);
      if (res?.status === 200) return (performance.now() - started) / 1000;
      await sleep(5);
    }
  } finally {
    await service.stop('SIGTERM');
  }
}

async function afterChecks(): Promise<{ rss: number; peak: number }> {
  const images: PushedImage[] = [];
  for (let i = 0; i < IMAGES; i++) {
    const image = await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `bench-memory-${i}`, cmd: ['sleep', '86400'] });
    await pullImage(engine, image.ref);
    images.push(image);
  }
  await mapBounded(Array.from({ length: CONTAINERS }, (_, i) => i), 8, async (i) => {
    const container = await engine.createContainer({ name: `${prefix}-c${i}`, Image: (images[i % IMAGES] as PushedImage).ref, HostConfig: { NetworkMode: 'none' } });
    await container.start();
  });
  const service = await startService(['--host', env.dockerHost, '--http-api-endpoints', 'check', '--http-api-token', TOKEN, '--no-startup-message', `${prefix}-.*`]);
  try {
    for (let i = 0; i < 3; i++) {
      const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
      const count = (res.body as { count?: number }).count;
      if (res.status !== 200 || count !== CONTAINERS) throw new Error(`check: ${res.status} ${count}`);
    }
    await sleep(2000);
    return memoryOf(service.child.pid as number);
  } finally {
    await service.stop('SIGTERM');
  }
}

/** The floor: a bare Node process with the same flags, idle as long. */
async function idleBareNode(): Promise<number> {
  const child = spawn(process.execPath, [...NODE_FLAGS, '-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  try {
    return (await idleOf(child.pid as number)).settled;
  } finally {
    child.kill('SIGTERM');
  }
}

/** The same service with and without a big state, alternated so that both see the same machine. */
async function withState(): Promise<void> {
  const dir = await bigStateDir();
  const withDir = ['--data-dir', dir];
  const startup = { without: [] as number[], with: [] as number[] };
  const idle = { without: [] as number[], with: [] as number[] };
  for (let i = 0; i < RUNS; i++) {
    startup.without.push(await startupWall());
    startup.with.push(await startupWall(withDir));
    idle.without.push((await idleAllEndpoints()).settled);
    idle.with.push((await idleAllEndpoints(withDir)).settled);
  }
  const line = (what: string, value: string) => console.log(`${what.padEnd(44)} ${value}`);
  line('state: 1,000 containers, 10,000 audit entries', dir);
  line('spawn to /startupz, without state, median', `${median(startup.without).toFixed(3)} s`);
  line('spawn to /startupz, with state, median', `${median(startup.with).toFixed(3)} s`);
  const slower = median(startup.with) - median(startup.without);
  line('  difference', `${slower.toFixed(3)} s (target <= 0.2 s: ${slower <= 0.2 ? 'met' : 'NOT met'})`);
  line('idle RSS, all endpoints, without state', `${median(idle.without).toFixed(1)} MB`);
  line('idle RSS, all endpoints, with state', `${median(idle.with).toFixed(1)} MB`);
  const more = median(idle.with) - median(idle.without);
  line('  difference', `${more.toFixed(1)} MB (target <= 10 MB: ${more <= 10 ? 'met' : 'NOT met'})`);
  await rm(dir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, flags as the image runs it: ${NODE_FLAGS.join(' ') || '(none)'}`);
  console.log(`load average at start: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  if (ONLY === 'idle') {
    await idleComparison();
    console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    return;
  }
  if (ONLY === 'state') {
    await withState();
    console.log(`load average at the end: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    return;
  }
  const bare: number[] = [];
  const help: number[] = [];
  const startup: number[] = [];
  const idle: Idle[] = [];
  const idleAll: Idle[] = [];
  for (let i = 0; i < RUNS; i++) {
    help.push(await helpWall());
    startup.push(await startupWall());
    idle.push(await idleService(BIN));
    idleAll.push(await idleAllEndpoints());
    bare.push(await idleBareNode());
  }
  const report = (what: string, value: number, unit: string, target: number) =>
    console.log(`${what.padEnd(44)} ${value.toFixed(unit === 's' ? 3 : 1)} ${unit} (target <= ${target} ${unit}: ${value <= target ? 'met' : 'NOT met'})`);
  report('--help wall, median', median(help), 's', 0.25);
  console.log(`${'spawn to /startupz 200, median'.padEnd(44)} ${median(startup).toFixed(3)} s`);
  const floor = median(bare);
  console.log(`${'floor: bare node idle RSS, median'.padEnd(44)} ${floor.toFixed(1)} MB`);
  const settled = (values: Idle[]) => median(values.map((v) => v.settled));
  const early = (values: Idle[]) => median(values.map((v) => v.early)).toFixed(1);
  report(`idle RSS, default plugins, median (${IDLE_AFTER_MS / 1000} s)`, settled(idle), 'MB', 60);
  console.log(`${'  2 s after start-up'.padEnd(44)} ${early(idle)} MB`);
  console.log(`${'  ratio to the floor'.padEnd(44)} ${(settled(idle) / floor).toFixed(2)}x`);
  report(`idle RSS, all endpoints, median (${IDLE_AFTER_MS / 1000} s)`, settled(idleAll), 'MB', 80);
  console.log(`${'  2 s after start-up'.padEnd(44)} ${early(idleAll)} MB`);
  await withState();
  try {
    const after = await afterChecks();
    report(`RSS after 3 checks of ${CONTAINERS} containers`, after.rss, 'MB', 100);
    console.log(`${'  peak RSS (VmHWM) during them'.padEnd(44)} ${after.peak.toFixed(1)} MB`);
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
