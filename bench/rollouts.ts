// Benchmark (not a test): time from a push to the last stage-2 host replaced, in a staged rollout
// (docs/rollouts.md) with `--rollout-soak 0s`, through the real binary and the test environment's real engines
// as --host entries: the private engine and the TLS engine in stage 1, Docker 26 and both Docker 28.5 engines in
// stage 2 (those the environment has). Each host runs `--containers` containers of one image.
//
//   bash scripts/test-env.sh up
//   TS_NODE_TRANSPILE_ONLY=1 node --import=@tapjs/typescript/import bench/rollouts.ts [--containers 2] [--rounds 3] [--grace 0s]
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

const PER_HOST = Number(argument('containers', '2'));
const ROUNDS = Number(argument('rounds', '3'));
const GRACE = argument('grace', '0s');
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
}

interface Host {
  readonly host: string;
  readonly entry: string;
  readonly engine: Docker;
  readonly stage: number;
}

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as Env;

function hosts(): Host[] {
  const list: Host[] = [{ host: env.dockerHost, entry: `${env.dockerHost}?stage=1`, engine: new Docker({ socketPath: env.dockerSocket }), stage: 1 }];
  if (env.secondDockerHost && env.secondCertPath) {
    const url = new URL(env.secondDockerHost.replace(/^tcp:/, 'https:'));
    const certs = (name: string) => readFileSync(join(env.secondCertPath as string, name));
    list.push({
      host: env.secondDockerHost,
      entry: `${env.secondDockerHost}?tlsverify=1&cert-path=${env.secondCertPath}&stage=1`,
      engine: new Docker({ protocol: 'https', host: url.hostname, port: Number(url.port), ca: certs('ca.pem'), cert: certs('cert.pem'), key: certs('key.pem') }),
      stage: 1,
    });
  }
  for (const [host, socket] of [[env.docker26Host, env.docker26Socket], [env.docker28StoreHost, env.docker28StoreSocket], [env.docker28Host, env.docker28Socket]]) {
    if (host && socket) list.push({ host, entry: `${host}?stage=2`, engine: new Docker({ socketPath: socket }), stage: 2 });
  }
  return list;
}

async function main(): Promise<void> {
  const fleet = hosts();
  const reachable: Host[] = [];
  for (const h of fleet) {
    try {
      await h.engine.ping();
      reachable.push(h);
    } catch {
      console.log(`skipping ${h.host}: it does not answer`);
    }
  }
  const stage2 = reachable.filter((h) => h.stage === 2);
  if (stage2.length === 0 || reachable.length === stage2.length) throw new Error('the bench needs hosts in both stages');
  const prefix = testPrefix('bench-rollouts');
  const repo = `${prefix}/app`;
  const dir = await mkdtemp(join(tmpdir(), 'tw-bench-rollouts-'));
  const names = Array.from({ length: PER_HOST }, (_, i) => `${prefix}-c${i}`);
  let version = 1;
  const first = await pushImage({ registry: env.registry, repo, marker: `v${version}`, cmd: QUICK_STOP_CMD });
  for (const h of reachable) {
    await pullImage(h.engine, first.ref);
    for (const name of names) await runContainer(h.engine, { name, image: first.ref, cmd: QUICK_STOP_CMD });
  }
  const service = await startService([
    ...reachable.flatMap((h) => ['--host', h.entry]),
    '--rollout-soak', '0s', '--update-grace-period', GRACE, '--stop-timeout', '5s', '--data-dir', dir,
    '--http-api-endpoints', 'update,rollouts', '--http-api-token', TOKEN, `${prefix}-.*`,
  ]);
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
        if (performance.now() - pushed > 60_000) throw new Error('stage 2 was not replaced within a minute');
        await new Promise((r) => setTimeout(r, 50));
      }
      const done = performance.now();
      stage1Ms.push(stage1Done - pushed);
      totalMs.push(done - pushed);
      console.log(`round ${round + 1}: stage 1 replaced in ${(stage1Done - pushed).toFixed(0)} ms, last stage-2 host in ${(done - pushed).toFixed(0)} ms`);
    }
  } catch (err) {
    // What the service said about the rollout and anything that went wrong, to see why.
    for (const line of service.logs) {
      if (process.env['BENCH_LOG'] || line['plugin'] === 'rollouts' || Number(line['level'] ?? 0) >= 40) console.log(JSON.stringify(line).slice(0, 600));
    }
    throw err;
  } finally {
    await service.stop();
    for (const h of reachable) {
      await removeContainers(h.engine, prefix);
      await removeImages(h.engine, prefix);
    }
    await rm(dir, { recursive: true, force: true });
  }
  const [l1, l5, l15] = loadavg().map((l) => l.toFixed(2));
  console.log(
    `hosts: ${reachable.length} (${reachable.length - stage2.length} in stage 1, ${stage2.length} in stage 2), ${PER_HOST} containers each, ` +
      `--rollout-soak 0s, --update-grace-period ${GRACE}, ${ROUNDS} rounds`,
  );
  console.log(`push → stage 1 replaced (median): ${median(stage1Ms).toFixed(0)} ms`);
  console.log(`push → last stage-2 host replaced (median): ${median(totalMs).toFixed(0)} ms`);
  console.log(`load average: ${l1} ${l5} ${l15}`);
}

await main();
