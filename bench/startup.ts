// Benchmark (not a test): start-up with many engines (docs/performance.md#start-up). N hosts are N names
// (symbolic links) spread round-robin over the test environment's real private engines (its Docker, 26.1, 28.5
// and 28.5 with the containerd store: every unix-socket engine it runs), each engine holding the same C created
// containers, so every host answers with C containers and the engines' own work is spread over several
// daemons rather than repeated N times by one. It measures from spawn to the HTTP API listening, /startupz (the
// first discovery done) and /readyz (every engine answered, after the start-up repairs), each probe polled on its
// own from spawn, the CPU time the service spent by /readyz (user + system, /proc), and, with
// `--count`, the Engine requests per host (each link then a counting relay in this process, not timed). The
// floor is the same per-host work done directly from this process: every host's container list and the
// inspect of its image, all hosts at once, which no client can beat on these engines.
//
//   bash scripts/test-env.sh up && npm run build
//   node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/startup.ts [--hosts 100] [--containers 50] [--rounds 3] [--count] [--baseline DIR]
import { readFileSync } from 'node:fs';
import { mkdir, rm, symlink } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Docker from 'dockerode';
import { testEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, testPrefix } from '../test/helpers/images.js';
import { startService, type RunningService } from '../test/helpers/service.js';
import { argument } from './cli.js';

const HOSTS = Number(argument('hosts', '100'));
const CONTAINERS = Number(argument('containers', '50'));
const ROUNDS = Number(argument('rounds', '3'));
const COUNT = process.argv.includes('--count');
/** Another checkout, built (the build before a change): its binary started with the same hosts in the same rounds. */
const BASELINE = argument('baseline', '');

const env = await testEnv();
if (!env) throw new Error('no test environment: bash scripts/test-env.sh up');
const sockets = [env.dockerSocket, env.docker26Socket, env.docker28Socket, env.docker28StoreSocket].filter((s): s is string => typeof s === 'string');
const engines = sockets.map((socketPath) => new Docker({ socketPath }));
const prefix = testPrefix('bench-startup');
const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'startup' });
await Promise.all(
  engines.map(async (engine) => {
    await pullImage(engine, image.ref);
    for (let i = 0; i < CONTAINERS; i++) {
      await engine.createContainer({ name: `${prefix}-${i}`, Image: image.ref, Cmd: ['true'], Labels: { 'tidewatch.bench': prefix } });
    }
  }),
);
const dir = join(env.dockerSocket, '..', `bench-hosts-${prefix}`);
await mkdir(dir, { recursive: true });
const targetOf = (i: number) => sockets[i % sockets.length] as string;
const link = (i: number) => join(dir, `h${i}.sock`);
for (let i = 0; i < HOSTS; i++) await symlink(targetOf(i), link(i));
const hosts = (n: number) => Array.from({ length: n }, (_, i) => `unix://${link(i)}`).join(',');

async function until(url: string, deadline: number): Promise<number> {
  for (;;) {
    const res = await fetch(url).catch(() => undefined);
    if (res?.status === 200) return performance.now();
    if (performance.now() > deadline) throw new Error(`${url} not 200 in time`);
    await sleep(10);
  }
}

/** user + system CPU seconds of a process (/proc/<pid>/stat, clock ticks of 1/100 s). */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function startOnce(n: number, hostList = hosts(n), bin?: string): Promise<{ listening: number; startup: number; ready: number; cpu: number; service: RunningService }> {
  const started = performance.now();
  const service = await startService(['--host', hostList, '--include-stopped', '--monitor-only', '--interval', '86400', '--no-startup-message', '--http-api-endpoints', 'metrics', '--http-api-token', 'bench-startup-token-0123456789', `${prefix}-.*`], {}, 120_000, ...(bin ? [bin] : []));
  const listening = performance.now() - started;
  // Each probe on its own from spawn: /readyz (every engine answers a ping, after the start-up repairs) does not
  // wait for the first discovery, which /startupz reports (docs/hosts.md#start-up).
  let cpu = 0;
  const [startup, ready] = await Promise.all([
    until(`${service.url}/startupz`, started + 120_000),
    until(`${service.url}/readyz`, started + 120_000).then((at) => ((cpu = cpuOf(service.child.pid as number)), at)),
  ]);
  return { listening, startup: startup - started, ready: ready - started, cpu, service };
}

/** One GET over a unix socket, its body read whole. */
function get(socketPath: string, path: string, agent: http.Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ socketPath, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
  });
}

/** The floor: every host's container list and its image's inspect, all hosts at once, from this process. */
async function floor(n: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const agent = new http.Agent({ keepAlive: true });
      const listed = JSON.parse(await get(link(i), '/containers/json?all=1', agent)) as { ImageID: string }[];
      for (const id of new Set(listed.map((c) => c.ImageID))) await get(link(i), `/images/${id}/json`, agent);
      agent.destroy();
    }),
  );
  return performance.now() - started;
}

/** Each link replaced by a relay that counts the HTTP requests sent through it (not used for timing). */
async function countRequests(n: number): Promise<number[]> {
  const counts = Array.from({ length: n }, () => 0);
  const servers: net.Server[] = [];
  const relayDir = join(dir, 'relay');
  await mkdir(relayDir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const server = net.createServer((client) => {
      const upstream = net.connect(targetOf(i));
      client.on('data', (chunk: Buffer) => {
        const requests = chunk.toString('latin1').match(/(?:^|\r\n)(?:GET|HEAD|POST|PUT|DELETE) \/\S* HTTP\/1\.[01]\r\n/g) ?? [];
        counts[i] = (counts[i] as number) + requests.length;
        if (i === 0 && process.env['BENCH_LOG']) for (const r of requests) console.log('  host 0:', r.trim().replace(/\?.*/, ''));
      });
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(join(relayDir, `h${i}.sock`), resolve));
    servers.push(server);
  }
  const { service } = await startOnce(n, Array.from({ length: n }, (_, i) => `unix://${join(relayDir, `h${i}.sock`)}`).join(','));
  await sleep(500);
  await service.stop('SIGKILL');
  for (const server of servers) server.close();
  return counts;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
try {
  const one: number[] = [];
  const many: number[] = [];
  const manyStartup: number[] = [];
  const manyListening: number[] = [];
  const cpu: number[] = [];
  const floors: number[] = [];
  const base: number[] = [];
  const baseCpu: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const single = await startOnce(1);
    one.push(single.ready);
    await single.service.stop();
    floors.push(await floor(HOSTS));
    const m = await startOnce(HOSTS);
    many.push(m.ready);
    manyStartup.push(m.startup);
    manyListening.push(m.listening);
    if (process.env['BENCH_LOG']) {
      const seen = new Map<string, number>();
      for (const l of m.service.logs) seen.set(String(l['msg']), (seen.get(String(l['msg'])) ?? 0) + 1);
      for (const l of m.service.logs) if (seen.get(String(l['msg'])) === 1 || l['level'] !== 30) console.log(l['time'], l['msg'], l['host'] ?? '');
      console.log([...seen].map(([k, v]) => `${v}x ${k}`).join('\n'));
    }
    cpu.push(m.cpu);
    await m.service.stop();
    if (BASELINE) {
      const b = await startOnce(HOSTS, hosts(HOSTS), join(BASELINE, 'bin/tidewatch.js'));
      base.push(b.ready);
      baseCpu.push(b.cpu);
      await b.service.stop();
    }
  }
  console.log(`load average: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  console.log(`${HOSTS} hosts over ${sockets.length} engines, ${CONTAINERS} containers per host; median of ${ROUNDS}:`);
  console.log(`  1 host: /readyz ${median(one).toFixed(0)} ms`);
  console.log(`  ${HOSTS} hosts: listening ${median(manyListening).toFixed(0)} ms, /startupz ${median(manyStartup).toFixed(0)} ms, /readyz ${median(many).toFixed(0)} ms (target <= 1500 ms); rounds ${many.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`  service CPU (user + system) from spawn to /readyz: ${median(cpu).toFixed(2)} s; rounds ${cpu.map((x) => x.toFixed(2)).join(', ')}`);
  console.log(`  floor (each host's list and image inspect, all at once, this process): ${median(floors).toFixed(0)} ms; rounds ${floors.map((x) => x.toFixed(0)).join(', ')}`);
  if (BASELINE) {
    console.log(`  baseline ${BASELINE}, same rounds: /readyz ${median(base).toFixed(0)} ms, CPU ${median(baseCpu).toFixed(2)} s; rounds ${base.map((x) => x.toFixed(0)).join(', ')}`);
  }
  if (COUNT) {
    const counts = await countRequests(HOSTS);
    const sorted = [...counts].sort((a, b) => a - b);
    console.log(`  Engine requests per host by /readyz (+0.5 s): min ${sorted[0]}, median ${median(counts)}, max ${sorted.at(-1)}, total ${counts.reduce((a, b) => a + b, 0)}`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  for (const engine of engines) await removeContainers(engine, prefix);
}
