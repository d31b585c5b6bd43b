// Benchmark (not a test): `POST /v1/check` over many hosts (issue 46: 100 hosts × 50 containers) through the real
// service's HTTP API, against the serial floor of the same work done by hand in this bare Node process, and the
// service's RSS after the checks (docs/performance.md#start-up). As in bench/startup.ts, N hosts are N names
// (symbolic links) spread round-robin over the test environment's four real unix-socket engines (Docker, 26.1,
// 28.5, 28.5 with the containerd store), each engine holding the same C created containers over I images, so every
// host answers with C containers. The floor, phase after phase as bench/check.ts does it for one engine: every
// host's container list (all hosts at once), every host's inspect of each of its distinct images (10 at a time per
// host, all hosts at once), then one manifest HEAD per distinct image reference (20 at a time). Interleaved round
// by round (floor, service, …).
//
//   bash scripts/test-env.sh up && npm run build
//   node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/check-hosts.ts [--hosts 100] [--containers 50] [--images 10] [--rounds 7] [--baseline DIR]
//
// `--baseline DIR` starts another built checkout's binary (the build before a change) beside this one and checks
// with it in the same rounds (floor, service, baseline, …); its RSS is printed the same way.
//
// Prints the medians, the ratio (target <= 1.0x), the manifest requests one check made (target: one per image,
// counted in the registry's access log), and the service's RSS after the checks (target <= 160 MB).
import { readFileSync } from 'node:fs';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { Agent, request } from 'undici';
import { mapBounded } from '../core/index.js';
import { MANIFEST_ACCEPT } from '../plugins/registry/client.js';
import { logMark, testEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix, type PushedImage } from '../test/helpers/images.js';
import { call, startService, type RunningService } from '../test/helpers/service.js';
import { argument, median, sleep } from './cli.js';

const HOSTS = Number(argument('hosts', '100'));
const CONTAINERS = Number(argument('containers', '50'));
const IMAGES = Number(argument('images', '10'));
const ROUNDS = Math.max(3, Number(argument('rounds', '7')));
const HEAD_CONCURRENCY = 20;
// The Docker plugin's image inspects in flight per engine (its --docker-inspect-concurrency default).
const INSPECT_CONCURRENCY = 10;
const TOKEN = 'bench-check-hosts-token-0123456789';
const BASELINE = argument('baseline', '');

const env = await testEnv();
if (!env) throw new Error('no test environment: bash scripts/test-env.sh up');
const sockets = [env.dockerSocket, env.docker26Socket, env.docker28Socket, env.docker28StoreSocket].filter((s): s is string => typeof s === 'string');
const engines = sockets.map((socketPath) => new Docker({ socketPath }));
const prefix = testPrefix('bench-check-hosts');
const dir = join(env.dockerSocket, '..', `bench-hosts-${prefix}`);
const link = (i: number) => join(dir, `h${i}.sock`);

async function fleet(): Promise<PushedImage[]> {
  const images = await mapBounded(Array.from({ length: IMAGES }, (_, i) => i), 4, (i) =>
    pushImage({ registry: env!.registry, repo: `${prefix}/img${i}`, marker: `bench-check-hosts-${i}`, cmd: ['true'] }),
  );
  await Promise.all(
    engines.map(async (engine) => {
      for (const image of images) await pullImage(engine, image.ref);
      await mapBounded(Array.from({ length: CONTAINERS }, (_, i) => i), 4, (i) =>
        engine.createContainer({ name: `${prefix}-c${i}`, Image: (images[i % IMAGES] as PushedImage).ref, Cmd: ['true'] }),
      );
    }),
  );
  await mkdir(dir, { recursive: true });
  for (let i = 0; i < HOSTS; i++) await symlink(sockets[i % sockets.length] as string, link(i));
  return images;
}

/** The floor: the same work by hand, each phase after the other, a keep-alive pool per host. */
function makeFloor() {
  const hostAgents = Array.from({ length: HOSTS }, (_, i) => new Agent({ connect: { socketPath: link(i) }, connections: INSPECT_CONCURRENCY, keepAliveTimeout: 30_000 }));
  const registryAgent = new Agent({ connections: HEAD_CONCURRENCY, keepAliveTimeout: 30_000 });
  const engineGet = async <T>(host: number, path: string): Promise<T> => {
    const res = await request(`http://docker${path}`, { dispatcher: hostAgents[host] as Agent });
    return (await res.body.json()) as T;
  };
  return {
    async run(): Promise<number> {
      const started = performance.now();
      const lists = await Promise.all(hostAgents.map((_, h) => engineGet<{ ImageID: string; Names: string[] }[]>(h, '/containers/json?all=1')));
      const inspected = await Promise.all(
        lists.map((listed, h) => {
          const ids = [...new Set(listed.filter((c) => c.Names.some((n) => n.startsWith(`/${prefix}-`))).map((c) => c.ImageID))];
          return mapBounded(ids, INSPECT_CONCURRENCY, (id) => engineGet<{ RepoTags: string[] }>(h, `/images/${id}/json`));
        }),
      );
      const refs = [...new Set(inspected.flat().map((i) => i.RepoTags.find((r) => r.includes(prefix))).filter((r): r is string => r !== undefined))];
      await mapBounded(refs, HEAD_CONCURRENCY, async (ref) => {
        const slash = ref.indexOf('/');
        const colon = ref.lastIndexOf(':');
        const res = await request(`http://${ref.slice(0, slash)}/v2/${ref.slice(slash + 1, colon)}/manifests/${ref.slice(colon + 1)}`, {
          method: 'HEAD',
          dispatcher: registryAgent,
          headers: { accept: MANIFEST_ACCEPT },
        });
        await res.body.dump();
        if (res.statusCode !== 200) throw new Error(`floor HEAD ${ref}: ${res.statusCode}`);
      });
      return performance.now() - started;
    },
    close: () => Promise.all([...hostAgents, registryAgent].map((a) => a.close())),
  };
}

async function serviceRun(service: RunningService): Promise<number> {
  const started = performance.now();
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  const elapsed = performance.now() - started;
  const body = res.body as { containers?: unknown[]; results?: unknown[] };
  const count = (body.containers ?? body.results ?? []).length;
  if (res.status !== 200 || count !== HOSTS * CONTAINERS) throw new Error(`check: ${res.status}, ${count} containers: ${res.text.slice(0, 300)}`);
  return elapsed;
}

/** Resident set size of a process in MB (/proc/<pid>/status). */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

try {
  await fleet();
  const hostList = Array.from({ length: HOSTS }, (_, i) => `unix://${link(i)}`).join(',');
  const args = ['--host', hostList, '--include-stopped', '--http-api-endpoints', 'check', '--http-api-token', TOKEN, '--no-startup-message', '--interval', '86400', `${prefix}-.*`];
  const service = await startService(args, {}, 120_000);
  const baseline = BASELINE ? await startService(args, {}, 120_000, join(BASELINE, 'bin/tidewatch.js')) : undefined;
  const pid = service.child.pid as number;
  const basePid = baseline?.child.pid as number;
  const floor = makeFloor();
  try {
    await sleep(2000);
    const idle = rssOf(pid);
    const baseIdle = baseline ? rssOf(basePid) : 0;
    // Warm both sides (the registry's storage cache, connections, the service's first run).
    await floor.run();
    await serviceRun(service);
    if (baseline) await serviceRun(baseline);
    await sleep(500);
    const mark = await logMark(env.registryLog);
    await serviceRun(service);
    await sleep(500); // the registry logs after each response
    const manifests = (await mark.read()).filter((l) => l.includes(`/v2/${prefix}/`) && l.includes('/manifests/')).length;
    const floorTimes: number[] = [];
    const serviceTimes: number[] = [];
    const baselineTimes: number[] = [];
    let peak = 0;
    let basePeak = 0;
    for (let round = 0; round < ROUNDS; round++) {
      floorTimes.push(await floor.run());
      serviceTimes.push(await serviceRun(service));
      peak = Math.max(peak, rssOf(pid));
      if (baseline) {
        baselineTimes.push(await serviceRun(baseline));
        basePeak = Math.max(basePeak, rssOf(basePid));
      }
    }
    await sleep(2000);
    const after = rssOf(pid);
    const baseAfter = baseline ? rssOf(basePid) : 0;
    const ratio = median(serviceTimes) / median(floorTimes);
    console.log(`load average: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    console.log(
      `${HOSTS} hosts over ${sockets.length} engines × ${CONTAINERS} containers (${HOSTS * CONTAINERS}) over ${IMAGES} images, ${ROUNDS} interleaved rounds: ` +
        `floor median ${median(floorTimes).toFixed(0)} ms, service median ${median(serviceTimes).toFixed(0)} ms, ratio ${ratio.toFixed(2)}x (target <= 1.0x: ${ratio <= 1 ? 'met' : 'NOT met'}); ` +
        `manifest requests per check ${manifests} (expected ${IMAGES})`,
    );
    console.log(`  floor   ${floorTimes.map((x) => x.toFixed(0)).join(' ')}\n  service ${serviceTimes.map((x) => x.toFixed(0)).join(' ')}`);
    console.log(`  service RSS: idle ${idle.toFixed(1)} MB, peak after a check ${peak.toFixed(1)} MB, 2 s after the checks ${after.toFixed(1)} MB (target <= 160 MB: ${after <= 160 ? 'met' : 'NOT met'})`);
    if (baseline) {
      console.log(`  baseline ${BASELINE}: median ${median(baselineTimes).toFixed(0)} ms, ratio ${(median(baselineTimes) / median(floorTimes)).toFixed(2)}x; rounds ${baselineTimes.map((x) => x.toFixed(0)).join(' ')}`);
      console.log(`  baseline RSS: idle ${baseIdle.toFixed(1)} MB, peak after a check ${basePeak.toFixed(1)} MB, 2 s after the checks ${baseAfter.toFixed(1)} MB`);
    }
  } finally {
    await floor.close();
    await service.stop('SIGTERM');
    await baseline?.stop('SIGTERM');
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  for (const engine of engines) {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}
