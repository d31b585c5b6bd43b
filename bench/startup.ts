// Benchmark (not a test): start-up with many engines (docs/performance.md#start-up). N hosts are N names
// (symbolic links) for the test environment's one real engine, each holding the same C created containers:
// the service connects to, repairs and lists every host as it would N engines, and the time from spawn to
// /startupz (the first discovery done) and /readyz (every engine answered) is measured, against 1 host in the
// same run.
//
//   bash scripts/test-env.sh up && npm run build
//   node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/startup.ts [--hosts 100] [--containers 50]
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { docker, testEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, testPrefix } from '../test/helpers/images.js';
import { startService } from '../test/helpers/service.js';
import { argument } from './cli.js';

const HOSTS = Number(argument('hosts', '100'));
const CONTAINERS = Number(argument('containers', '50'));
const ROUNDS = Number(argument('rounds', '3'));

const env = await testEnv();
if (!env) throw new Error('no test environment: bash scripts/test-env.sh up');
const engine = docker(env);
const prefix = testPrefix('bench-startup');
const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'startup' });
await pullImage(engine, image.ref);
for (let i = 0; i < CONTAINERS; i++) {
  await engine.createContainer({ name: `${prefix}-${i}`, Image: image.ref, Cmd: ['true'], Labels: { 'tidewatch.bench': prefix } });
}
const dir = join(env.dockerSocket, '..', `bench-hosts-${prefix}`);
await mkdir(dir, { recursive: true });
for (let i = 0; i < HOSTS; i++) await symlink(env.dockerSocket, join(dir, `h${i}.sock`));
const hosts = (n: number) => Array.from({ length: n }, (_, i) => `unix://${join(dir, `h${i}.sock`)}`).join(',');

async function until(url: string, deadline: number): Promise<number> {
  for (;;) {
    const res = await fetch(url).catch(() => undefined);
    if (res?.status === 200) return performance.now();
    if (performance.now() > deadline) throw new Error(`${url} not 200 in time`);
    await sleep(10);
  }
}

async function startOnce(n: number): Promise<{ startup: number; ready: number; targets: number }> {
  const started = performance.now();
  const service = await startService(['--host', hosts(n), '--include-stopped', '--monitor-only', '--interval', '86400', '--no-startup-message', '--http-api-endpoints', 'metrics', '--http-api-token', 'bench-startup-token-0123456789'], {}, 120_000);
  try {
    const startup = (await until(`${service.url}/startupz`, started + 120_000)) - started;
    const ready = (await until(`${service.url}/readyz`, started + 120_000)) - started;
    const listed = service.logs.filter((l) => typeof l['containers'] === 'number').map((l) => l['containers'] as number);
    return { startup, ready, targets: listed.at(-1) ?? -1 };
  } finally {
    await service.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
try {
  const one: number[] = [];
  const many: number[] = [];
  const manyStartup: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    one.push((await startOnce(1)).ready);
    const m = await startOnce(HOSTS);
    many.push(m.ready);
    manyStartup.push(m.startup);
  }
  console.log(`${CONTAINERS} containers per host; median of ${ROUNDS}: 1 host ready in ${median(one).toFixed(0)} ms; ${HOSTS} hosts: /startupz ${median(manyStartup).toFixed(0)} ms, /readyz ${median(many).toFixed(0)} ms (${(median(many) / median(one)).toFixed(2)}x one host; target <= 1500 ms)`);
} finally {
  await rm(dir, { recursive: true, force: true });
  await removeContainers(engine, prefix);
}
