// Benchmark (not a test): `POST /v1/check` of a fleet on tag policies (docs/tags.md#what-it-costs) through the
// real service's HTTP API, against the serial floor of the same work done by hand in this bare Node process:
// list the containers, inspect the distinct images, walk each repository's tag list, then GET the chosen
// candidate's manifest and its config blob, each phase after the other at concurrency 20; interleaved round
// by round (floor, service, floor, service…). 200 containers over 50 repositories of 300 tags each, all on
// `minor` (docs/performance.md has the pattern, bench/check.ts its floor).
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:tags -- [--rounds 7] [--containers 200] [--repos 50] [--tags 300]
//
// Prints both medians, the ratio (target <= 1.2x), /proc/loadavg, and the requests one check made, counted in
// the registry's own access log (target: one tag-list walk per repository, at most one manifest request per
// candidate tried, here one per repository).
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { Agent, request } from 'undici';
import { mapBounded } from '../core/index.js';
import { MANIFEST_ACCEPT } from '../plugins/registry/client.js';
import { newerTags } from '../plugins/registry/tags/versions.js';
import { logMark, type TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix } from '../test/helpers/images.js';
import { call, startService, type RunningService } from '../test/helpers/service.js';
import { pushTags } from '../test/helpers/tag-fixtures.js';
import { argument, median } from './cli.js';

const ROUNDS = Math.max(7, Number(argument('rounds', '7')));
const CONTAINERS = Number(argument('containers', '200'));
const REPOS = Number(argument('repos', '50'));
const TAGS = Number(argument('tags', '300'));
const CONCURRENCY = 20;
const INSPECT_CONCURRENCY = 10;
const TOKEN = 'bench-tags-token-0123456789';
const RUNNING_TAG = '1.0.0';

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-tags');
const repoOf = (i: number) => `${prefix}/r${i}`;

/** 1.0.0 (runnable, pulled) and TAGS - 1 more: patch releases of 1.0, then minors of 1.x, then majors. */
function tagList(): string[] {
  const rest = Array.from({ length: TAGS - 1 }, (_, i) => (i < 100 ? `1.0.${i + 1}` : i < 200 ? `1.${i - 99}.0` : `${i - 198}.0.0`));
  return rest;
}

async function fleet(): Promise<void> {
  await mapBounded(Array.from({ length: REPOS }, (_, i) => i), 4, async (i) => {
    const image = await pushImage({ registry: env.registry, repo: repoOf(i), tag: RUNNING_TAG, marker: `bench-tags-${i}`, cmd: ['sleep', '86400'] });
    await pushTags(env.registry, repoOf(i), tagList(), undefined, 8);
    await pullImage(engine, image.ref);
  });
  await mapBounded(Array.from({ length: CONTAINERS }, (_, i) => i), 8, async (i) => {
    const container = await engine.createContainer({
      name: `${prefix}-c${i}`,
      Image: `${env.registry}/${repoOf(i % REPOS)}:${RUNNING_TAG}`,
      Labels: { 'tidewatch.tag.policy': 'minor' },
      HostConfig: { NetworkMode: 'none' },
    });
    await container.start();
  });
}

/** The floor: the same work by hand, each phase after the other, over one keep-alive connection pool each. */
function makeFloor() {
  const dockerAgent = new Agent({ connect: { socketPath: env.dockerSocket }, connections: INSPECT_CONCURRENCY, keepAliveTimeout: 30_000 });
  const registryAgent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const engineGet = async <T>(path: string): Promise<T> => {
    const res = await request(`http://docker${path}`, { dispatcher: dockerAgent });
    return (await res.body.json()) as T;
  };
  const registryGet = async <T>(path: string, accept = 'application/json'): Promise<T> => {
    const res = await request(`http://${env.registry}${path}`, { dispatcher: registryAgent, headers: { accept } });
    if (res.statusCode !== 200) throw new Error(`floor GET ${path}: ${res.statusCode}`);
    return (await res.body.json()) as T;
  };
  const rules = { policy: 'minor', explicit: true, prerelease: false } as const;
  return {
    async run(): Promise<number> {
      const started = performance.now();
      const filters = encodeURIComponent(JSON.stringify({ status: ['running'], label: ['tidewatch.tag.policy'] }));
      const listed = await engineGet<{ Image: string; ImageID: string }[]>(`/containers/json?all=1&filters=${filters}`);
      const ids = [...new Set(listed.map((c) => c.ImageID))];
      await mapBounded(ids, INSPECT_CONCURRENCY, (id) => engineGet<{ Architecture: string }>(`/images/${id}/json`));
      const repos = [...new Set(listed.map((c) => c.Image).filter((i) => i.includes(prefix)))].map((ref) => ref.slice(ref.indexOf('/') + 1, ref.lastIndexOf(':')));
      const lists = await mapBounded(repos, CONCURRENCY, (repo) => registryGet<{ tags: string[] }>(`/v2/${repo}/tags/list?n=1000`));
      await mapBounded(repos, CONCURRENCY, async (repo, i) => {
        const [best] = newerTags(RUNNING_TAG, lists[i]?.tags ?? [], rules);
        if (!best) throw new Error(`floor: no candidate in ${repo}`);
        const manifest = await registryGet<{ config: { digest: string } }>(`/v2/${repo}/manifests/${best.tag}`, MANIFEST_ACCEPT);
        await registryGet(`/v2/${repo}/blobs/${manifest.config.digest}`, '*/*');
      });
      return performance.now() - started;
    },
    close: () => Promise.all([dockerAgent.close(), registryAgent.close()]),
  };
}

async function serviceRun(service: RunningService): Promise<number> {
  const started = performance.now();
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  const elapsed = performance.now() - started;
  const records = (res.body as { containers?: { update_available: boolean; latest_tag?: string }[] }).containers ?? [];
  if (res.status !== 200 || records.length !== CONTAINERS || !records.every((r) => r.update_available && r.latest_tag === `1.${100}.0`)) {
    throw new Error(`check: ${res.status}, ${records.length} containers: ${res.text.slice(0, 300)}`);
  }
  return elapsed;
}

async function main(): Promise<void> {
  try {
    await fleet();
    const service = await startService(['--host', env.dockerHost, '--http-api-endpoints', 'check', '--http-api-token', TOKEN, '--no-startup-message', `${prefix}-.*`]);
    const floor = makeFloor();
    try {
      await floor.run();
      await serviceRun(service);
      await new Promise((r) => setTimeout(r, 500));
      const mark = await logMark(env.registryLog);
      await serviceRun(service);
      await new Promise((r) => setTimeout(r, 1000)); // the registry logs after each response
      const lines = (await mark.read()).filter((l) => l.includes(`/v2/${prefix}/`));
      const count = (part: string) => lines.filter((l) => l.includes(part)).length;
      const floorTimes: number[] = [];
      const serviceTimes: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        floorTimes.push(await floor.run());
        serviceTimes.push(await serviceRun(service));
      }
      const f = median(floorTimes);
      const s = median(serviceTimes);
      const ratio = s / f;
      console.log(
        `${CONTAINERS} containers / ${REPOS} repositories of ${TAGS} tags, all on minor, ${ROUNDS} interleaved rounds: ` +
          `floor median ${f.toFixed(1)} ms, service median ${s.toFixed(1)} ms, ratio ${ratio.toFixed(2)}x (target <= 1.2x: ${ratio <= 1.2 ? 'met' : 'NOT met'})`,
      );
      const walks = count('/tags/list');
      const manifests = count('/manifests/');
      console.log(
        `  requests of one check: tag-list walks ${walks} (expected ${REPOS}: ${walks === REPOS ? 'exact' : 'WRONG'}), ` +
          `manifest requests ${manifests} (one candidate tried per repository, expected ${REPOS}: ${manifests === REPOS ? 'exact' : 'WRONG'}), config blobs ${count('/blobs/')}`,
      );
      console.log(`  floor   ${floorTimes.map((x) => x.toFixed(0)).join(' ')}\n  service ${serviceTimes.map((x) => x.toFixed(0)).join(' ')}`);
      console.log(`  /proc/loadavg ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    } finally {
      await floor.close();
      await service.stop('SIGTERM');
    }
  } finally {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
