// Benchmark (not a test): what update windows and approvals cost (docs/policies.md, docs/performance.md). Two
// services watch the same fleet (200 containers over 50 images, 10 of them with a newer image): one with the
// defaults (and --monitor-only, so that its update runs apply nothing either), one with a window closed now and
// every update waiting for an approval that nobody answers. Rounds interleave the two: a check (POST /v1/check),
// the container list (GET /v1/containers) and an update run (nothing applied by either) of each.
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:policies -- [--rounds 7] [--size 200x50x10]
//
// Prints the medians and the ratios policies/defaults (target: about 1.0x, i.e. windows and approvals cost
// nothing per check), and the update runs (what the two gates add to a run that applies nothing). The gated
// service's entries are not all pending: a third are rejected, a third approved (waiting for the closed
// window), the rest pending; the registry requests of each check (from the registry's access log) are
// counted for both services, and must be the same: an entry that is not pending costs no request per check.
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { mapBounded } from '../core/index.js';
import type { TestEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix, type PushedImage } from '../test/helpers/images.js';
import { call, startService, type RunningService } from '../test/helpers/service.js';
import { argument, median } from './cli.js';

const ROUNDS = Math.max(5, Number(argument('rounds', '7')));
const [CONTAINERS, IMAGES, STALE] = argument('size', '200x50x10').split('x').map(Number) as [number, number, number];
const TOKEN = 'bench-policies-token-0123456789';
const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as TestEnv;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-policies');

async function fleet(): Promise<void> {
  const images = await mapBounded(Array.from({ length: IMAGES }, (_, i) => i), 8, async (i) => {
    const image = await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `bench-policies-${i}`, cmd: ['sleep', '86400'] });
    await pullImage(engine, image.ref);
    return image;
  });
  await mapBounded(Array.from({ length: CONTAINERS }, (_, i) => i), 8, async (i) => {
    const image = images[i % IMAGES] as PushedImage;
    const container = await engine.createContainer({ name: `${prefix}-c${i}`, Image: image.ref, HostConfig: { NetworkMode: 'none' } });
    await container.start();
  });
  // Newer images for the first STALE repositories: their containers are stale.
  await mapBounded(Array.from({ length: STALE }, (_, i) => i), 8, (i) =>
    pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `bench-policies-${i} v2`, cmd: ['sleep', '86400'] }),
  );
}

/** Lines in the registry's access log: one per request. */
function registryRequests(): number {
  return readFileSync(env.registryLog, 'utf8').split('\n').filter(Boolean).length;
}

/** The registry requests one call makes (nothing else asks the registry meanwhile). */
async function requestsOf(service: RunningService, method: string, path: string): Promise<number> {
  const before = registryRequests();
  await timed(service, method, path);
  // The access log is written as requests are served; give the last lines a moment to land.
  await new Promise((r) => setTimeout(r, 200));
  return registryRequests() - before;
}

async function timed(service: RunningService, method: string, path: string): Promise<number> {
  const started = performance.now();
  const res = await call(`${service.url}${path}`, { method, token: TOKEN });
  const elapsed = performance.now() - started;
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return elapsed;
}

async function main(): Promise<void> {
  await fleet();
  const common = ['--host', env.dockerHost, '--http-api-token', TOKEN, '--no-startup-message', `${prefix}-.*`];
  const plain = await startService(['--http-api-endpoints', 'check,containers,update', '--monitor-only', ...common]);
  const gated = await startService([
    '--http-api-endpoints', 'check,containers,update,approvals', '--update-window', '0 0 1 1 *;1m;UTC', '--approval', 'all', ...common,
  ]);
  try {
    // Warm both, and let the gated service ask its approvals once (nobody answers them).
    for (const s of [plain, gated]) await timed(s, 'POST', '/v1/check');
    await timed(gated, 'POST', '/v1/update');
    // Decide some: a third rejected, a third approved (the closed window holds them), the rest left pending.
    const asked = ((await call(`${gated.url}/v1/approvals?state=pending`, { token: TOKEN })).body as { approvals: { id: string }[] }).approvals;
    for (const [i, entry] of asked.entries()) {
      const decision = i % 3 === 0 ? 'reject' : i % 3 === 1 ? 'approve' : undefined;
      if (decision) await call(`${gated.url}/v1/approvals/${entry.id}/${decision}`, { method: 'POST', token: TOKEN });
    }
    const states = ((await call(`${gated.url}/v1/approvals`, { token: TOKEN })).body as { approvals: { state: string }[] }).approvals;
    const count = (state: string) => states.filter((a) => a.state === state).length;
    const pending = count('pending');
    const requests = { plain: [] as number[], gated: [] as number[] };
    const times = { plainCheck: [] as number[], gatedCheck: [] as number[], plainList: [] as number[], gatedList: [] as number[], plainUpdate: [] as number[], gatedUpdate: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      times.plainCheck.push(await timed(plain, 'POST', '/v1/check'));
      times.gatedCheck.push(await timed(gated, 'POST', '/v1/check'));
      requests.plain.push(await requestsOf(plain, 'POST', '/v1/check'));
      requests.gated.push(await requestsOf(gated, 'POST', '/v1/check'));
      times.plainList.push(await timed(plain, 'GET', '/v1/containers'));
      times.gatedList.push(await timed(gated, 'GET', '/v1/containers'));
      times.plainUpdate.push(await timed(plain, 'POST', '/v1/update'));
      times.gatedUpdate.push(await timed(gated, 'POST', '/v1/update'));
    }
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as Record<keyof typeof times, number>;
    console.log(`${CONTAINERS} containers / ${IMAGES} images, ${STALE} stale images, approvals: ${pending} pending, ${count('rejected')} rejected, ${count('approved')} approved (window closed), ${ROUNDS} interleaved rounds:`);
    console.log(`  registry requests per check: defaults ${median(requests.plain)}, with policies ${median(requests.gated)} (${requests.plain.join(' ')} / ${requests.gated.join(' ')}), extra per check ${median(requests.gated) - median(requests.plain)}`);
    console.log(`  check: defaults ${m.plainCheck.toFixed(1)} ms, window closed + approvals ${m.gatedCheck.toFixed(1)} ms, ratio ${(m.gatedCheck / m.plainCheck).toFixed(2)}x`);
    console.log(`  /v1/containers: defaults ${m.plainList.toFixed(1)} ms, with policies ${m.gatedList.toFixed(1)} ms, ratio ${(m.gatedList / m.plainList).toFixed(2)}x`);
    console.log(`  update run, nothing applied: monitor-only ${m.plainUpdate.toFixed(1)} ms, window closed + approvals ${m.gatedUpdate.toFixed(1)} ms, ratio ${(m.gatedUpdate / m.plainUpdate).toFixed(2)}x`);
    for (const [k, v] of Object.entries(times)) console.log(`  ${k.padEnd(12)} ${v.map((x) => x.toFixed(0)).join(' ')}`);
  } finally {
    await plain.stop('SIGTERM');
    await gated.stop('SIGTERM');
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
