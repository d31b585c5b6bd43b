// Benchmark (not a test): `POST /v1/check` through the real service's HTTP API against the serial floor
// of the same work done by hand in this bare Node process (list the containers, inspect the distinct
// images, HEAD each image's manifest at concurrency 20), interleaved round by round (floor, service,
// floor, service…), at 200 containers over 50 images and at 1000 over 250 (docs/performance.md).
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:check -- [--rounds 7] [--sizes 200x50,1000x250]
//
// Prints each size's medians, the ratio (target <= 1.0x) and the manifest requests one check made
// (target: exactly one per distinct image), counted in the registry's own access log.
//
// Versions and release notes (docs/versions.md): `--stale 10` pushes newer images, with a version label and a
// GitHub source, for the first 10 images, so a check names their versions; `--baseline <checkout>` measures
// that checkout's build (bin/tidewatch.js over its dist/) in the same rounds (target: this build within 1.1x
// of it); `--release-notes` measures a second instance of this build with the flag, against a loopback fake of
// GitHub, in the same rounds, and counts its requests per check (target: one per stale repository, conditional).
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { Agent, request } from 'undici';
import { mapBounded } from '../core/index.js';
import { MANIFEST_ACCEPT } from '../plugins/registry/client.js';
import { logMark, type TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix, type PushedImage } from '../test/helpers/images.js';
import { FakeGitHub } from '../test/helpers/fake-github.js';
import { call, startService, type RunningService } from '../test/helpers/service.js';
import { argument } from './cli.js';

const ROUNDS = Math.max(7, Number(argument('rounds', '7')));
const SIZES = argument('sizes', '200x50,1000x250')
  .split(',')
  .map((s) => s.split('x').map(Number) as [number, number]);
const HEAD_CONCURRENCY = 20;
// The Docker plugin's image inspects in flight (its --docker-inspect-concurrency default).
const INSPECT_CONCURRENCY = 10;
const TOKEN = 'bench-check-token-0123456789';
// --keep leaves the fleet behind for the next invocation of the same size (for profiling; see docs/performance.md).
const KEEP = process.argv.includes('--keep');
const STALE = Number(argument('stale', '0'));
const BASELINE = argument('baseline', '');
const RELEASE_NOTES = process.argv.includes('--release-notes');
const VERSION = 'org.opencontainers.image.version';

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const engine = new Docker({ socketPath: env.dockerSocket });
// A kept fleet needs a name the next invocation finds again.
const prefix = KEEP ? 'tw-bench-check-kept' : testPrefix('bench-check');

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

function labelsOf(i: number, version: string): Record<string, string> {
  return { [VERSION]: version, 'org.opencontainers.image.source': `https://github.com/bench/img${i}` };
}

/** Newer images (version 1.1.0) under the tags of the first `count` images: their containers are stale. */
async function pushNewer(count: number): Promise<void> {
  await mapBounded(Array.from({ length: count }, (_, i) => i), 4, (i) =>
    pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `bench-check-${i}-newer`, cmd: ['sleep', '86400'], labels: labelsOf(i, '1.1.0') }),
  );
}

async function fleetSize(): Promise<number> {
  return (await engine.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.startsWith(`/${prefix}-`))).length;
}

async function fleet(containers: number, imageCount: number, images: PushedImage[]): Promise<void> {
  while (images.length < imageCount) {
    const i = images.length;
    const image = await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `bench-check-${i}`, cmd: ['sleep', '86400'], labels: labelsOf(i, '1.0.0') });
    await pullImage(engine, image.ref);
    images.push(image);
  }
  const existing = await fleetSize();
  const todo = Array.from({ length: containers - existing }, (_, k) => existing + k);
  await mapBounded(todo, 8, async (i) => {
    const image = images[i % imageCount] as PushedImage;
    const container = await engine.createContainer({
      name: `${prefix}-c${i}`,
      Image: image.ref,
      HostConfig: { NetworkMode: 'none' },
    });
    await container.start();
  });
}

/** The floor: the same work by hand, each phase after the other, over one keep-alive connection pool each. */
function makeFloor() {
  const dockerAgent = new Agent({ connect: { socketPath: env.dockerSocket }, connections: INSPECT_CONCURRENCY, keepAliveTimeout: 30_000 });
  const registryAgent = new Agent({ connections: HEAD_CONCURRENCY, keepAliveTimeout: 30_000 });
  const engineGet = async <T>(path: string): Promise<T> => {
    const res = await request(`http://docker${path}`, { dispatcher: dockerAgent });
    return (await res.body.json()) as T;
  };
  return {
    async run(): Promise<number> {
      const started = performance.now();
      const filters = encodeURIComponent(JSON.stringify({ status: ['running'] }));
      const listed = await engineGet<{ Image: string; ImageID: string; Names: string[] }[]>(`/containers/json?all=1&filters=${filters}`);
      const ids = [...new Set(listed.map((c) => c.ImageID))];
      const inspected = await mapBounded(ids, INSPECT_CONCURRENCY, (id) => engineGet<{ RepoTags: string[] }>(`/images/${id}/json`));
      const refs = [...new Set(inspected.map((i) => i.RepoTags[0]).filter((r): r is string => r !== undefined && r.includes(prefix)))];
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
    close: () => Promise.all([dockerAgent.close(), registryAgent.close()]),
  };
}

async function serviceRun(service: RunningService, containers: number): Promise<number> {
  const started = performance.now();
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  const elapsed = performance.now() - started;
  const body = res.body as { containers?: unknown[]; results?: unknown[] };
  const count = (body.containers ?? body.results ?? []).length;
  if (res.status !== 200 || count !== containers) throw new Error(`check: ${res.status}, ${count} containers: ${res.text.slice(0, 300)}`);
  return elapsed;
}

async function measure(containers: number, imageCount: number, images: PushedImage[]) {
  await fleet(containers, imageCount, images);
  if (STALE > 0) await pushNewer(Math.min(STALE, imageCount));
  const github = RELEASE_NOTES ? await FakeGitHub.start({ limit: 100_000 }) : undefined;
  // Each source repository exists (a fake without the repository answers 404, which has no ETag: the
  // earlier version of this bench counted those as its unexplained non-conditional request per check).
  for (let i = 0; github && i < imageCount; i++) {
    github.setRepo('bench', `img${i}`, { branches: { main: 'a'.repeat(40) } });
    github.setReleases('bench', `img${i}`, ['1.1.0', '1.0.0'].map((tag) => ({ tag_name: tag, body: `Changes in ${tag}` })));
  }
  const args = ['--host', env.dockerHost, '--http-api-endpoints', 'check', '--http-api-token', TOKEN, '--no-startup-message', `${prefix}-.*`];
  // Versions are always on: `service` is this build as it ships, compared with the baseline; with
  // --release-notes a second instance of this build adds the flag, compared with the first.
  const service = await startService(args);
  const notes = github ? await startService([...args, '--release-notes', '--git-github-api-url', github.url]) : undefined;
  const baseline = BASELINE ? await startService(args, {}, 30_000, `${BASELINE}/bin/tidewatch.js`) : undefined;
  const floor = makeFloor();
  try {
    // Warm both sides (the registry's storage cache, connections, the service's first run).
    await floor.run();
    await serviceRun(service, containers);
    if (notes) await serviceRun(notes, containers); // the first check reads every page (200s)
    await new Promise((r) => setTimeout(r, 500));
    const mark = await logMark(env.registryLog);
    await serviceRun(service, containers);
    await new Promise((r) => setTimeout(r, 500)); // the registry logs after each response
    const lines = (await mark.read()).filter((l) => l.includes(`/v2/${prefix}/`) && l.includes('/manifests/'));
    github?.resetRequests();
    const floorTimes: number[] = [];
    const serviceTimes: number[] = [];
    const baselineTimes: number[] = [];
    const notesTimes: number[] = [];
    if (baseline) await serviceRun(baseline, containers);
    for (let round = 0; round < ROUNDS; round++) {
      floorTimes.push(await floor.run());
      serviceTimes.push(await serviceRun(service, containers));
      if (baseline) baselineTimes.push(await serviceRun(baseline, containers));
      if (notes) notesTimes.push(await serviceRun(notes, containers));
    }
    const githubRequests = github
      ? {
          perCheck: github.requests.length / ROUNDS,
          conditional: github.requests.every((r) => r.ifNoneMatch !== undefined && r.status === 304),
          statuses: [...github.requests.reduce((m, r) => {
            const key = `${r.status}${r.ifNoneMatch ? ' conditional' : ''}`;
            return m.set(key, (m.get(key) ?? 0) + 1);
          }, new Map<string, number>())].map(([k, n]) => `${n}× ${k}`).join(', '),
        }
      : undefined;
    return {
      floor: median(floorTimes), service: median(serviceTimes), manifestRequests: lines.length, floorTimes, serviceTimes,
      ...(baseline ? { baseline: median(baselineTimes), baselineTimes } : {}),
      ...(notes ? { notes: median(notesTimes), notesTimes } : {}),
      ...(githubRequests ? { githubRequests } : {}),
    };
  } finally {
    await floor.close();
    await service.stop('SIGTERM');
    await baseline?.stop('SIGTERM');
    await notes?.stop('SIGTERM');
    await github?.close();
  }
}

async function main(): Promise<void> {
  const images: PushedImage[] = [];
  try {
    for (const [containers, imageCount] of SIZES) {
      // Each size starts from its own fleet: container i runs image i mod the image count.
      if (!KEEP || (await fleetSize()) !== containers) await removeContainers(engine, prefix);
      const r = await measure(containers, imageCount, images);
      const ratio = r.service / r.floor;
      console.log(
        `${containers} containers / ${imageCount} images, ${ROUNDS} interleaved rounds: floor median ${r.floor.toFixed(1)} ms, ` +
          `service median ${r.service.toFixed(1)} ms, ratio ${ratio.toFixed(2)}x (target <= 1.0x: ${ratio <= 1 ? 'met' : 'NOT met'}); ` +
          `manifest requests per check ${r.manifestRequests} (expected ${imageCount}: ${r.manifestRequests === imageCount ? 'exact' : 'WRONG'})`,
      );
      console.log(`  floor   ${r.floorTimes.map((x) => x.toFixed(0)).join(' ')}\n  service ${r.serviceTimes.map((x) => x.toFixed(0)).join(' ')}`);
      if (r.baseline !== undefined) {
        const against = r.service / r.baseline;
        // Under a shared machine's load one round can be slow for either side: the median of the per-round
        // ratios (each pair measured back to back) is printed beside the ratio of the medians.
        const paired = median(r.serviceTimes.map((x, i) => x / (r.baselineTimes?.[i] ?? x)));
        console.log(`  baseline (${BASELINE}) median ${r.baseline.toFixed(1)} ms: this build ${against.toFixed(2)}x of it, per-round median ${paired.toFixed(2)}x (target <= 1.1x: ${Math.min(against, paired) <= 1.1 ? 'met' : 'NOT met'})`);
        console.log(`  baseline ${r.baselineTimes?.map((x) => x.toFixed(0)).join(' ')}`);
      }
      if (r.notes !== undefined) {
        const paired = median(r.notesTimes?.map((x, i) => x / (r.serviceTimes[i] ?? x)) ?? []);
        console.log(`  with --release-notes median ${r.notes.toFixed(1)} ms: ${(r.notes / r.service).toFixed(2)}x of this build without it, per-round median ${paired.toFixed(2)}x`);
        console.log(`  notes    ${r.notesTimes?.map((x) => x.toFixed(0)).join(' ')}`);
      }
      if (r.githubRequests) {
        const stale = Math.min(STALE, imageCount);
        console.log(`  GitHub requests per check ${r.githubRequests.perCheck} (expected ${stale}, one per stale repository), all conditional 304: ${r.githubRequests.conditional} (${r.githubRequests.statuses} over ${ROUNDS} checks)`);
      }
    }
  } finally {
    if (!KEEP) {
      await removeContainers(engine, prefix);
      await removeImages(engine, prefix);
    }
  }
}

await main();
