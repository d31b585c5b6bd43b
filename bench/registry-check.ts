// Benchmark (not a test): 200 containers over 50 distinct images on the local registry, one check run
// through createTidewatch with the registry plugin, against a bare undici client issuing the same 50
// HEAD requests at the same concurrency. Prints the registry requests the check made (from the
// registry's own access log and from the plugin's registry_request events) and the times.
//
//   bash scripts/test-env.sh up
//   node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs bench/registry-check.ts [--auth] [--runs N]
//
// --auth uses the htpasswd registry (Basic on every request) instead of the anonymous one.
// Targets: 50 manifest requests (+ the /v2/ challenge once per registry and process); time ≤ 1.5× bare.
import { Agent, request } from 'undici';
import { createTidewatch, mapBounded, type Target, type Tidewatch, type TidewatchPlugin } from '../core/index.js';
import { registryPlugin } from '../plugins/registry/index.js';
import { MANIFEST_ACCEPT } from '../plugins/registry/client.js';
import { logMark, testEnv } from '../test/helpers/env.js';
import { pushImage, type PushedImage } from '../test/helpers/images.js';
import { emptyConfigDir, target } from '../test/plugins/registry/harness.js';

const IMAGES = 50;
const CONTAINERS = 200;
const CONCURRENCY = 20;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : (process.argv[i + 1] ?? '');
}
const useAuth = process.argv.includes('--auth');
const runs = Number(arg('--runs') ?? 21);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function main(): Promise<void> {
  const env = await testEnv();
  if (!env) throw new Error('no test environment: bash scripts/test-env.sh up');
  const registry = useAuth ? env.authRegistry : env.registry;
  const accessLog = useAuth ? env.authRegistryLog : env.registryLog;
  const auth = useAuth ? { username: env.authUser, password: env.authPassword } : undefined;
  const basic = auth ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` : undefined;

  process.stdout.write(`pushing ${IMAGES} images to ${registry}… `);
  const images: PushedImage[] = [];
  for (let i = 0; i < IMAGES; i++) {
    images.push(await pushImage({ registry, repo: `tw-bench/img${i}`, marker: `bench-${i}`, ...(auth ? { auth } : {}) }));
  }
  console.log('done');
  const targets: Target[] = Array.from({ length: CONTAINERS }, (_, i) => {
    const image = images[i % IMAGES] as PushedImage;
    return target(`bench-${i}`, image.ref, [image.digestRef]);
  });

  // --- Tidewatch
  const events: { method: string; code: string }[] = [];
  const stub: TidewatchPlugin<object> = {
    name: 'bench-runtime',
    apply(core) {
      core.hooks.discover.tapPromise('bench-runtime', async (found) => [...found, ...targets]);
      core.hooks.event.tap('bench-runtime', (e) => {
        if (e.type === 'registry_request') events.push(e.data);
      });
    },
  };
  const makeTw = () =>
    createTidewatch({
      checkConcurrency: CONCURRENCY,
      plugins: [
        stub,
        {
          plugin: registryPlugin,
          options: {
            concurrency: CONCURRENCY,
            dockerConfigDir: emptyConfigDir(),
            ...(auth ? { repoUser: auth.username, repoPass: auth.password } : {}),
          },
        },
      ] as TidewatchPlugin<object>[],
    });
  const tidewatchRun = async (tw: Tidewatch): Promise<number> => {
    const started = performance.now();
    const report = await tw.check();
    const ms = performance.now() - started;
    const bad = report.results.filter((r) => r.staleness.error || r.staleness.stale);
    if (report.results.length !== CONTAINERS || bad.length > 0) {
      throw new Error(`unexpected check result: ${bad.length} errors or stale (${bad[0]?.staleness.error ?? ''})`);
    }
    return ms;
  };

  // --- bare undici: the same 50 HEADs, same concurrency, one keep-alive Agent
  const makeAgent = () => new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  const bareRun = async (agent: Agent): Promise<number> => {
    const started = performance.now();
    await mapBounded(images, CONCURRENCY, async (image) => {
      const res = await request(`http://${registry}/v2/${image.repo}/manifests/${image.tag}`, {
        method: 'HEAD',
        dispatcher: agent,
        headers: { accept: MANIFEST_ACCEPT, ...(basic ? { authorization: basic } : {}) },
      });
      await res.body.dump();
      if (res.headers['docker-content-digest'] !== image.digest) throw new Error(`bare HEAD ${image.ref}: ${res.statusCode}`);
    });
    return performance.now() - started;
  };

  // Warm the registry itself (its storage cache) with a throwaway client, so neither side of the first
  // comparison pays for it. Then cold: a new plugin instance (new connections, the /v2/ challenge, the
  // process's first run of the plugin code) and a new bare Agent.
  const throwaway = makeAgent();
  await bareRun(throwaway);
  await throwaway.close();
  await new Promise((r) => setTimeout(r, 500)); // let the registry log the warm-up before the mark
  const logStart = await logMark(accessLog);
  const coldTw = await makeTw();
  const coldTidewatch = await tidewatchRun(coldTw);
  await new Promise((r) => setTimeout(r, 300)); // the registry writes its access log after each response
  // The registry is shared with other test runs: count only this client's lines (user agent and repositories).
  const lines = (await logStart.read()).filter((l) => l.endsWith('"Tidewatch"'));
  const manifestLines = lines.filter((l) => l.includes('/v2/tw-bench/') && l.includes('/manifests/')).length;
  const pingLines = lines.filter((l) => /"GET \/v2\/ HTTP/.test(l)).length;
  const eventsCold = events.length;
  const coldAgent = makeAgent();
  const coldBare = await bareRun(coldAgent);
  // A new plugin instance once the process is warm: connection set-up and the challenge, without JIT warm-up.
  const freshTw = await makeTw();
  const freshTidewatch = await tidewatchRun(freshTw);
  await freshTw.close();
  const freshAgent = makeAgent();
  const freshBare = await bareRun(freshAgent);
  await freshAgent.close();

  // Warm: the same instances again and again (a service checks with one plugin instance for its life).
  const tw = coldTw;
  const agent = coldAgent;
  const tTimes: number[] = [];
  const bTimes: number[] = [];
  events.length = 0;
  for (let i = 0; i < 2; i++) {
    await tidewatchRun(tw);
    await bareRun(agent);
  }
  events.length = 0;
  for (let i = 0; i < runs; i++) {
    // Alternate which goes first so neither always meets a warmer registry.
    if (i % 2) {
      bTimes.push(await bareRun(agent));
      tTimes.push(await tidewatchRun(tw));
    } else {
      tTimes.push(await tidewatchRun(tw));
      bTimes.push(await bareRun(agent));
    }
  }
  const warmRequestsPerRun = events.length / runs;
  await tw.close();
  await agent.close();

  const tMed = median(tTimes);
  const bMed = median(bTimes);
  console.log(`registry ${registry}${useAuth ? ' (Basic auth)' : ''}: ${CONTAINERS} containers over ${IMAGES} images, concurrency ${CONCURRENCY}`);
  console.log(`first run: registry access log: ${manifestLines} manifest requests, ${pingLines} /v2/ challenge, ${lines.length} from Tidewatch in all; plugin events: ${eventsCold}`);
  console.log(`later runs: ${warmRequestsPerRun} registry requests per run (plugin events)`);
  console.log(`first run: tidewatch ${coldTidewatch.toFixed(1)} ms, bare ${coldBare.toFixed(1)} ms, ratio ${(coldTidewatch / coldBare).toFixed(2)}x`);
  console.log(`new instance, warm process: tidewatch ${freshTidewatch.toFixed(1)} ms, bare ${freshBare.toFixed(1)} ms, ratio ${(freshTidewatch / freshBare).toFixed(2)}x`);
  console.log(`median of ${runs}: tidewatch ${tMed.toFixed(1)} ms, bare ${bMed.toFixed(1)} ms, ratio ${(tMed / bMed).toFixed(2)}x (target ≤ 1.5x)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
