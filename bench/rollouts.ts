// Benchmark (not a test): time from a push to the last stage-2 host replaced, in a staged rollout
// (docs/rollouts.md) with `--rollout-soak 0s`, through the real binary and `--hosts` real engines (default 10) as
// --host entries, each host its own engine (two entries on one engine would see the same containers). It takes
// the test environment's engines (the private engine, the TLS engine, Docker 26 and both Docker 28.5 engines,
// those that answer) and starts the missing ones itself as extra private dockerd instances for the bench only
// (bench/bench-engines.ts: the machine's Debian dockerd, each with its own containerd, data root, exec root and
// unix socket in a directory under the environment's, `--bridge=none --iptables=false`), pulls the image into
// each from the environment's registry (127.0.0.1, insecure by default), and stops and removes them at the end,
// also on an error, SIGINT or SIGTERM. Stages: the first half of the hosts (rounded down) in stage 1, the rest in
// stage 2, in this order: the private and TLS engines, the extra engines, then Docker 26 and Docker 28.5 — with
// 10 hosts, 5 and 5: private, TLS and 3 extra in stage 1; 2 extra, Docker 26 and both Docker 28.5 in stage 2.
// Each host runs `--containers` containers of one image.
//
//   bash scripts/test-env.sh up
//   npm run bench:rollouts -- [--hosts 10] [--containers 2] [--rounds 3] [--grace 0s] [--concurrency 1]
//
// --concurrency is the service's --update-concurrency (default 1, its own default: one replacement at a time,
// across hosts too, so the time grows with the containers of a stage).
//
// Each round pushes a new version, then asks for one untargeted update (POST /v1/update, as a webhook or a
// schedule would): stage 1 is replaced by that run, the soak (0s) ends at once, and the rollouts plugin plans and
// applies stage 2 on its own. The clock stops when every stage-2 container runs the new image.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import Docker from 'dockerode';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../test/helpers/images.js';
import { QUICK_STOP_CMD } from '../test/helpers/scenarios.js';
import { call, startService } from '../test/helpers/service.js';
import { argument, median } from './cli.js';
import { atStop, runCleanups, startEngine, stopAll, stopOnSignal } from './bench-engines.js';

const HOSTS = Number(argument('hosts', '10'));
const PER_HOST = Number(argument('containers', '2'));
const ROUNDS = Number(argument('rounds', '3'));
const GRACE = argument('grace', '0s');
const CONCURRENCY = argument('concurrency', '1');
const TOKEN = 'bench-rollouts-token-0123456789';

interface Env {
  registry: string;
  dockerHost: string;
  dockerSocket: string;
  secondDockerHost?: string;
  secondCertPath?: string;
  docker26Host?: string;
  docker26Socket?: string;
  docker28StoreHost?: string;
  docker28StoreSocket?: string;
  docker28Host?: string;
  docker28Socket?: string;
  storageDriver?: string;
}

/** A host before its stage is known: `entry` is its --host value without the stage. */
interface Engine {
  readonly host: string;
  readonly entry: string;
  readonly engine: Docker;
  /** The environment's engines that went to stage 1 before (the private and TLS engines). */
  readonly early: boolean;
}

interface Host extends Engine {
  readonly stage: number;
}

const ENV_DIR = process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env';
const env = JSON.parse(readFileSync(`${ENV_DIR}/env.json`, 'utf8')) as Env;

function environmentEngines(): Engine[] {
  const list: Engine[] = [{ host: env.dockerHost, entry: env.dockerHost, engine: new Docker({ socketPath: env.dockerSocket }), early: true }];
  if (env.secondDockerHost && env.secondCertPath) {
    const url = new URL(env.secondDockerHost.replace(/^tcp:/, 'https:'));
    const certs = (name: string) => readFileSync(join(env.secondCertPath as string, name));
    list.push({
      host: env.secondDockerHost,
      entry: `${env.secondDockerHost}?tlsverify=1&cert-path=${env.secondCertPath}`,
      engine: new Docker({ protocol: 'https', host: url.hostname, port: Number(url.port), ca: certs('ca.pem'), cert: certs('cert.pem'), key: certs('key.pem') }),
      early: true,
    });
  }
  for (const [host, socket] of [[env.docker26Host, env.docker26Socket], [env.docker28StoreHost, env.docker28StoreSocket], [env.docker28Host, env.docker28Socket]]) {
    if (host && socket) list.push({ host, entry: host, engine: new Docker({ socketPath: socket }), early: false });
  }
  return list;
}

/** `HOSTS` engines, each its own: the environment's that answer, then extra ones started under `root`. */
async function engines(root: string): Promise<Host[]> {
  if (!Number.isInteger(HOSTS) || HOSTS < 2) throw new Error('--hosts must be a whole number of at least 2');
  const reachable: Engine[] = [];
  for (const e of environmentEngines()) {
    try {
      await e.engine.ping();
      reachable.push(e);
    } catch {
      console.log(`skipping ${e.host}: it does not answer`);
    }
  }
  const extra: Engine[] = [];
  const missing = Math.max(0, HOSTS - reachable.length);
  if (missing > 0) {
    const driver = env.storageDriver || 'vfs';
    console.log(`starting ${missing} extra engines (dockerd, storage driver ${driver}) under ${root}`);
    const started = await Promise.all(Array.from({ length: missing }, (_, i) => startEngine(root, `e${i + 1}`, driver)));
    for (const s of started) extra.push({ host: `unix://${s.socket}`, entry: `unix://${s.socket}`, engine: s.engine, early: false });
  }
  const ordered = [...reachable.filter((e) => e.early), ...extra, ...reachable.filter((e) => !e.early)].slice(0, HOSTS);
  const first = Math.floor(ordered.length / 2);
  return ordered.map((e, i) => {
    const stage = i < first ? 1 : 2;
    return { ...e, entry: `${e.entry}${e.entry.includes('?') ? '&' : '?'}stage=${stage}`, stage };
  });
}

/** Waits until the newest rollout is `done` (GET /v1/rollouts, docs/http-api.md). */
async function rolloutDone(url: string): Promise<void> {
  const deadline = performance.now() + 60_000;
  for (;;) {
    const res = await call(`${url}/v1/rollouts`, { token: TOKEN });
    const newest = (JSON.parse(res.text) as { rollouts: { state: string }[] }).rollouts[0];
    if (newest?.state === 'done') return;
    if (performance.now() > deadline) throw new Error(`the rollout did not finish within a minute: ${res.text.slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  const root = await mkdtemp(join(ENV_DIR, 'bench-engines-'));
  stopOnSignal(root);
  try {
    await bench(await engines(root));
  } finally {
    await runCleanups();
    await stopAll(root);
  }
}

async function bench(reachable: Host[]): Promise<void> {
  const stage2 = reachable.filter((h) => h.stage === 2);
  if (stage2.length === 0 || reachable.length === stage2.length) throw new Error('the bench needs hosts in both stages');
  console.log(`hosts: ${reachable.map((h) => `${h.host} (stage ${h.stage})`).join(', ')}`);
  const prefix = testPrefix('bench-rollouts');
  const repo = `${prefix}/app`;
  const dir = await mkdtemp(join(tmpdir(), 'tw-bench-rollouts-'));
  const names = Array.from({ length: PER_HOST }, (_, i) => `${prefix}-c${i}`);
  // Undone once, at the end or on SIGINT/SIGTERM (before the extra engines stop): the bench's containers and
  // images on every host, its data directory, and (registered later) the service.
  atStop(async () => {
    await Promise.all(reachable.map(async (h) => {
      await removeContainers(h.engine, prefix);
      await removeImages(h.engine, prefix);
    }));
    await rm(dir, { recursive: true, force: true });
  });
  let version = 1;
  const first = await pushImage({ registry: env.registry, repo, marker: `v${version}`, cmd: QUICK_STOP_CMD });
  await Promise.all(reachable.map(async (h) => {
    await pullImage(h.engine, first.ref);
    for (const name of names) await runContainer(h.engine, { name, image: first.ref, cmd: QUICK_STOP_CMD });
  }));
  const service = await startService([
    ...reachable.flatMap((h) => ['--host', h.entry]),
    '--rollout-soak', '0s', '--update-grace-period', GRACE, '--stop-timeout', '5s', '--data-dir', dir,
    '--update-concurrency', CONCURRENCY,
    '--http-api-endpoints', 'update,rollouts', '--http-api-token', TOKEN, `${prefix}-.*`,
  ]);
  atStop(async () => {
    await service.stop();
  });
  const stage1Ms: number[] = [];
  const totalMs: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      version++;
      const next = await pushImage({ registry: env.registry, repo, marker: `v${version}`, cmd: QUICK_STOP_CMD });
      const pushed = performance.now();
      const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
      if (res.status !== 200) throw new Error(`update answered ${res.status}: ${res.text}`);
      const stage1Done = performance.now();
      for (;;) {
        // A container is briefly under another name while it is replaced: not done yet.
        const images = await Promise.all(stage2.flatMap((h) => names.map(async (n) => (await h.engine.getContainer(n).inspect().catch(() => undefined))?.Image)));
        // The containerd image store (Docker 28.5 with it on) names an image by its manifest's digest.
        if (images.every((id) => id === next.configDigest || id === next.digest)) break;
        if (performance.now() - pushed > 120_000) throw new Error('stage 2 was not replaced within two minutes');
        await new Promise((r) => setTimeout(r, 50));
      }
      const done = performance.now();
      stage1Ms.push(stage1Done - pushed);
      totalMs.push(done - pushed);
      console.log(`round ${round + 1}: stage 1 replaced in ${(stage1Done - pushed).toFixed(0)} ms, last stage-2 host in ${(done - pushed).toFixed(0)} ms`);
      // Out of the clock: the stage-2 run finishes (old images, the rollout marked done, the update lock freed)
      // before the next push, or the next round's update would be refused as busy.
      await rolloutDone(service.url);
    }
  } catch (err) {
    // What the service said about the rollout and anything that went wrong, to see why.
    for (const line of service.logs) {
      if (process.env['BENCH_LOG'] || line['plugin'] === 'rollouts' || Number(line['level'] ?? 0) >= 40) console.log(JSON.stringify(line).slice(0, 600));
    }
    throw err;
  } finally {
    await runCleanups();
  }
  const [l1, l5, l15] = loadavg().map((l) => l.toFixed(2));
  console.log(
    `hosts: ${reachable.length} (${reachable.length - stage2.length} in stage 1, ${stage2.length} in stage 2), ${PER_HOST} containers each, ` +
      `--rollout-soak 0s, --update-grace-period ${GRACE}, --update-concurrency ${CONCURRENCY}, ${ROUNDS} rounds`,
  );
  console.log(`push → stage 1 replaced (median): ${median(stage1Ms).toFixed(0)} ms`);
  console.log(`push → last stage-2 host replaced (median): ${median(totalMs).toFixed(0)} ms`);
  console.log(`load average: ${l1} ${l5} ${l15}`);
}

await main();
