// Benchmark (not a test): push to apply through a webhook (docs/webhooks.md#latency). A private docker-registry
// 2.8 notifies the built binary (receiver `reg=distribution,…,action=update`) on every push; N pushes of a
// new image to the tag a container runs, one after another. Each sample is the time from the push's
// manifest PUT answering to `update_completed` for the container on /v1/events; it includes the debounce
// (the quiet time a burst waits for) and the re-check, pull and replacement. Periodic polls are off (the
// update endpoint takes runs over): every run must be the webhook's, which the script checks.
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:webhook -- [--pushes 20] [--debounce 1.5s] [--grace 0s]
import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { EventSource } from 'eventsource';
import {
  buildManifest,
  pullImage,
  pushBlob,
  pushImage,
  putManifest,
  removeContainers,
  removeImages,
  runContainer,
  testPrefix,
} from '../test/helpers/images.js';
import { freePort, startNotifyingRegistry } from '../test/helpers/notifying-registry.js';
import { QUICK_STOP_CMD } from '../test/helpers/scenarios.js';
import { startService } from '../test/helpers/service.js';
import { argument, median, sleep } from './cli.js';

const PUSHES = Number(argument('pushes', '20'));
const DEBOUNCE = argument('debounce', '1.5s');
const GRACE = argument('grace', '0s');
const TARGET_MS = 5_000;
const TOKEN = 'bench-webhook-token';
const EVENTS = 'bench-webhook-events-token';

interface Env {
  dockerSocket: string;
  dockerHost: string;
}
interface Streamed {
  type: string;
  data: Record<string, unknown>;
  at: number;
}

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as Env;
const engine = new Docker({ socketPath: env.dockerSocket });
const prefix = testPrefix('bench-webhook');
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').trim();

async function waitFor<T>(fn: () => T | undefined, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = fn();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out');
    await sleep(5);
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg();
  const port = await freePort();
  const service = await startService([
    '--host', env.dockerHost,
    '--http-api-port', String(port),
    '--http-api-endpoints', 'hooks,update,events',
    '--http-api-token', 'bench-main-token',
    '--http-api-events-token', EVENTS,
    '--webhook', `reg=distribution,token=${TOKEN},action=update`,
    '--webhook-debounce', DEBOUNCE,
    '--update-grace-period', GRACE,
    '--stop-timeout', '5s',
    `${prefix}-.*`,
  ]);
  const registry = await startNotifyingRegistry({ url: `http://127.0.0.1:${port}/v1/hooks/reg`, token: TOKEN });
  const events: Streamed[] = [];
  const source = new EventSource(`${service.url}/v1/events?access_token=${EVENTS}`);
  for (const type of ['scan_started', 'scan_completed', 'update_completed', 'update_failed']) {
    source.addEventListener(type, (m) => events.push({ ...(JSON.parse(m.data) as Omit<Streamed, 'at'>), at: Date.now() }));
  }
  const repo = `${prefix}/app`;
  const name = `${prefix}-app`;
  try {
    const v0 = await pushImage({ registry: registry.registry, repo, marker: `${prefix} v0`, cmd: QUICK_STOP_CMD });
    await pullImage(engine, v0.ref);
    await runContainer(engine, { name, image: v0.ref });
    // The first push's own run (the container may not have existed yet) must be over before measuring.
    await sleep(4_000);
    const runsBefore = events.filter((e) => e.type === 'scan_started').length;
    const accessBefore = registry.access.length;
    const samples: number[] = [];
    for (let i = 1; i <= PUSHES; i++) {
      // Blobs first (not measured); the manifest PUT is the push a registry notifies.
      const built = await buildManifest({ registry: registry.registry, repo, marker: `${prefix} v${i}`, cmd: QUICK_STOP_CMD });
      for (const layer of built.layers) await pushBlob(registry.registry, repo, layer.blob, layer.digest);
      await pushBlob(registry.registry, repo, built.configBytes, built.configDigest);
      const seen = events.length;
      await putManifest(registry.registry, repo, 'latest', built.manifest, built.mediaType);
      const putAt = Date.now();
      const done = await waitFor(
        () => events.slice(seen).find((e) => (e.type === 'update_completed' || e.type === 'update_failed') && e.data['container'] === name),
        30_000,
      );
      if (done.type === 'update_failed') throw new Error(`push ${i}: update failed: ${JSON.stringify(done.data)}`);
      samples.push(done.at - putAt);
      await waitFor(() => events.slice(seen).find((e) => e.type === 'scan_completed'), 30_000);
      process.stdout.write(`push ${String(i).padStart(2)}: ${done.at - putAt} ms\n`);
    }
    const runs = events.filter((e) => e.type === 'scan_started').slice(runsBefore);
    const polls = runs.filter((e) => e.data['trigger'] !== 'webhook:reg').length;
    const scheduled = service.logs.some((l) => l['msg'] === 'scheduled updates enabled');
    const m = median(samples);
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(`\nbench:webhook: ${PUSHES} pushes, debounce ${DEBOUNCE} (included in every sample), grace period ${GRACE}`);
    console.log(`  manifest PUT answered -> update_completed: median ${m} ms, min ${sorted[0]} ms, max ${sorted[sorted.length - 1]} ms`);
    console.log(`  median without the debounce: ~${m - Math.round(parseFloat(DEBOUNCE) * (DEBOUNCE.endsWith('ms') ? 1 : 1000))} ms`);
    console.log(`  runs during the benchmark: ${runs.length} (webhook: ${runs.length - polls}, other: ${polls}); periodic polls scheduled: ${scheduled}`);
    console.log(`  registry requests during the benchmark: ${registry.access.length - accessBefore} (pushes and the runs' checks and pulls)`);
    console.log(`  /proc/loadavg before: ${loadBefore}; after: ${loadavg()}`);
    console.log(`  target: median below ${TARGET_MS} ms: ${m < TARGET_MS ? 'met' : 'MISSED'}`);
    if (polls > 0 || scheduled || runs.length !== PUSHES) {
      console.log(`  FAILED: expected exactly ${PUSHES} webhook runs and no poll`);
      process.exitCode = 1;
    }
    if (m >= TARGET_MS) process.exitCode = 1;
  } finally {
    source.close();
    await service.stop('SIGTERM');
    await registry.stop();
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  }
}

await main();
