// Benchmark (not a test): a request with a personal API token costs no more than one with the main token
// (docs/people.md#personal-api-tokens). The built binary serves GET /v1/config (a viewer's route that asks
// nothing of the engine, so the credential check is a visible share of the request), with 1,000 personal tokens
// created first (the lookup must not grow with their number). Rounds alternate main / personal, each round
// `--requests` requests with `--concurrency` in flight (load on the service, and on the machine from the
// client in the same run); the figures are the ratio of the median round times, personal over main, and of the
// median latencies; then the same number of requests interleaved (every other one with the other token), whose
// ratio of median latencies is the steady figure on a shared machine.
//
//   bash scripts/test-env.sh up && npm run build
//   npm run bench:people -- [--rounds 10] [--requests 2000] [--concurrency 32]
import { readFileSync } from 'node:fs';
import { startService } from '../test/helpers/service.js';
import { argument, median } from './cli.js';

const ROUNDS = Number(argument('rounds', '10'));
const REQUESTS = Number(argument('requests', '2000'));
const CONCURRENCY = Number(argument('concurrency', '32'));
const TOKENS = Number(argument('tokens', '1000'));
const TOKEN = 'bench-people-main-token-0123456789';

const env = JSON.parse(readFileSync(`${process.env['TIDEWATCH_ENV_DIR'] || '/tmp/tidewatch-env'}/env.json`, 'utf8')) as { dockerHost: string };
const loadavg = () => readFileSync('/proc/loadavg', 'utf8').trim();

const service = await startService(['--host', env.dockerHost, '--http-api-endpoints', 'config,tokens', '--http-api-token', TOKEN]);
try {
  const create = async (name: string, role: string): Promise<string> => {
    const res = await fetch(`${service.url}/v1/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, role }),
    });
    if (res.status !== 201) throw new Error(`token ${name}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { token: string }).token;
  };
  for (let i = 1; i < TOKENS; i++) await create(`filler-${i}`, 'viewer');
  const personal = await create('bench', 'viewer');

  /** One round: REQUESTS requests, CONCURRENCY at a time; total time and each request's latency. */
  const round = async (token: string): Promise<{ ms: number; latencies: number[] }> => {
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < REQUESTS) {
        next++;
        const t0 = performance.now();
        const res = await fetch(`${service.url}/v1/config`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`answer ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { ms: performance.now() - started, latencies };
  };

  await round(TOKEN);
  await round(personal); // warm-up of both paths
  const main: number[] = [];
  const mine: number[] = [];
  const mainLat: number[] = [];
  const mineLat: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which goes first, so a drift in the machine's load falls on both.
    const order = r % 2 === 0 ? [TOKEN, personal] : [personal, TOKEN];
    for (const token of order) {
      const { ms, latencies } = await round(token);
      (token === TOKEN ? main : mine).push(ms);
      (token === TOKEN ? mainLat : mineLat).push(...latencies);
    }
  }
  // Interleaved: the same CONCURRENCY workers, every other request with the other token, so both meet the
  // same moment of the machine's load (on a shared machine, whole rounds drift by ±15% from one to the next).
  const mixedMain: number[] = [];
  const mixedMine: number[] = [];
  let sent = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
    while (sent < ROUNDS * REQUESTS) {
      const mainTurn = (sent++ + w) % 2 === 0;
      const t0 = performance.now();
      const res = await fetch(`${service.url}/v1/config`, { headers: { authorization: `Bearer ${mainTurn ? TOKEN : personal}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`answer ${res.status}`);
      (mainTurn ? mixedMain : mixedMine).push(performance.now() - t0);
    }
  }));
  const rps = (ms: number) => Math.round((REQUESTS / ms) * 1000);
  console.log(JSON.stringify({
    rounds: ROUNDS,
    requests_per_round: REQUESTS,
    concurrency: CONCURRENCY,
    personal_tokens: TOKENS,
    main_median_round_ms: Math.round(median(main)),
    personal_median_round_ms: Math.round(median(mine)),
    main_rps: rps(median(main)),
    personal_rps: rps(median(mine)),
    ratio_round_personal_over_main: Number((median(mine) / median(main)).toFixed(3)),
    main_median_latency_ms: Number(median(mainLat).toFixed(2)),
    personal_median_latency_ms: Number(median(mineLat).toFixed(2)),
    ratio_latency_personal_over_main: Number((median(mineLat) / median(mainLat)).toFixed(3)),
    interleaved_requests: mixedMain.length + mixedMine.length,
    interleaved_main_median_latency_ms: Number(median(mixedMain).toFixed(2)),
    interleaved_personal_median_latency_ms: Number(median(mixedMine).toFixed(2)),
    ratio_interleaved_latency_personal_over_main: Number((median(mixedMine) / median(mixedMain)).toFixed(3)),
    loadavg: loadavg(),
  }, null, 2));
} finally {
  await service.stop();
}
