// A seeded, bounded fuzz of the HTTP API (issue 28; docs/http-api.md#malformed-requests-and-timeouts and
// #pattern-limits): the built binary with every endpoint enabled against the real private engine, driven
// over real sockets by random and mutated requests on every enabled route (routes that land later join
// through routes.ts once /swagger/doc.json lists them), malformed HTTP, slowloris and expensive patterns.
// It asserts no 5xx but the documented 503, no hang, no close a keep-alive client was not told about, no
// token in the service's log, RSS bounded across the pattern phase and /livez latency during it.
// Replay a run with TIDEWATCH_FUZZ_SEED=<the printed seed>.
import t from 'tap';
import { rawExchange, portOf, type RawResponse } from '../helpers/raw-http.js';
import { formatStats, heapUsedBytes, latencyStats, livezVerdict, loadAverage, mib, pollLatency, rssBytes, settledHeldBytes, type LatencyStats } from '../helpers/probe.js';
import { runningOn, scenario } from '../helpers/scenarios.js';
import { runBinary, startFullApi, type RunningService } from '../helpers/service.js';
import { FuzzConnection, type Outcome } from './connection.js';
import { malformedRequest, slowHeaders } from './malformed.js';
import { fuzzSeed, Prng } from './prng.js';
import { randomPattern, randomRequest, type Credentials } from './requests.js';
import { DOCUMENTED_5XX, enabledRoutes, routeOptions } from './routes.js';

const SEED = fuzzSeed(0x28_2026);
const CREDENTIALS: Credentials = {
  token: 'fuzz-main-token-3f9a1c',
  eventsToken: 'fuzz-events-token-7b2e4d',
  hookToken: 'fuzz-hook-token-5d8e2a',
  hookSecret: 'fuzz-hook-secret-1a7f3b',
};
/** Every request is answered or its connection closed within this (the longest: 10 s headers timeout, 5 s runs). */
const BOUND_MS = 20_000;
const RANDOM_PHASE_MS = 45_000;
const RANDOM_CONNECTIONS = 6;

interface Tally {
  requests: number;
  violations: string[];
  statuses: Map<number, number>;
}

function judge(tally: Tally, label: string, outcome: Outcome, head: boolean): void {
  tally.requests++;
  const fail = (why: string) => {
    if (tally.violations.length < 50) tally.violations.push(`${why}: ${label}`);
  };
  if (outcome.kind === 'hung') return fail(`no answer and no close within ${BOUND_MS} ms`);
  if (outcome.kind === 'closed') return fail('closed without an answer');
  const { response, closedAfter } = outcome;
  tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
  if (response.status >= 500 && !DOCUMENTED_5XX.has(response.status)) fail(`undocumented ${response.status} ${response.body.slice(0, 200)}`);
  if (closedAfter && response.headers['connection']?.toLowerCase() !== 'close') fail(`closed after ${response.status} without Connection: close`);
  if (head && response.body !== '') fail('HEAD answered with a body');
  checkEnvelope(response, head, fail);
}

/** JSON errors carry the envelope; the per-IP 429 (off here) is the one bodiless error. */
function checkEnvelope(response: RawResponse, head: boolean, fail: (why: string) => void): void {
  if (head || response.status < 400 || !/json/.test(response.headers['content-type'] ?? '')) return;
  try {
    const body = JSON.parse(response.body) as Record<string, unknown>;
    if (typeof body.error !== 'string' || body.api_version !== 'v1' || typeof body.timestamp !== 'string') fail(`${response.status} without the error envelope (${response.body.slice(0, 200)})`);
  } catch {
    fail(`${response.status} with a body that is not JSON (${response.body.slice(0, 200)})`);
  }
}

async function swaggerPaths(service: RunningService): Promise<string[]> {
  const res = await fetch(`${service.url}/swagger/doc.json`);
  const doc = (await res.json()) as { paths?: Record<string, unknown> };
  return Object.keys(doc.paths ?? {});
}

/** Random requests over keep-alive connections until the time is up. */
async function randomPhase(port: number, seed: number, routes: Parameters<typeof randomRequest>[1], tally: Tally, until: number): Promise<number> {
  let unannounced = 0;
  await Promise.all(
    Array.from({ length: RANDOM_CONNECTIONS }, async (_, index) => {
      // One generator per connection: its sequence of requests does not depend on the others' timing.
      const rng = new Prng(seed + 10 + index);
      const connection = new FuzzConnection(port);
      while (Date.now() < until) {
        const request = randomRequest(rng, routes, CREDENTIALS);
        const before = connection.previous;
        const outcome = await connection.send(request.bytes, request.head, BOUND_MS);
        const label = outcome.kind === 'answered' ? request.label : `${JSON.stringify(request.bytes.toString('latin1').slice(0, 600))} after ${before}`;
        judge(tally, label, outcome, request.head);
      }
      // A last close the server did not announce shows only once the client waits for it.
      await new Promise((resolve) => setTimeout(resolve, 200));
      unannounced += connection.unannouncedCloses;
      connection.close();
    }),
  );
  return unannounced;
}

/** Unparseable requests, each on a connection of its own, a few at a time. */
async function malformedPhase(port: number, rng: Prng, tally: Tally, count: number): Promise<void> {
  const batch = 8;
  for (let i = 0; i < count; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, async () => {
        const request = malformedRequest(rng);
        const exchange = await rawExchange(port, request.bytes, { waitMs: BOUND_MS, headRequests: [request.head] });
        const response = exchange.responses[0];
        const outcome: Outcome = response
          ? { kind: 'answered', response, ms: exchange.ms, closedAfter: exchange.closed }
          : exchange.closed
            ? { kind: 'closed', ms: exchange.ms }
            : { kind: 'hung', ms: exchange.ms };
        judge(tally, `malformed: ${request.label}`, outcome, request.head);
        if (response && response.status >= 400 && response.headers['connection'] !== 'close') {
          tally.violations.push(`malformed answered ${response.status} without Connection: close: ${request.label}`);
        }
      }),
    );
  }
}

/** Slowloris connections: each must get 408 and a close within the headers timeout (10 s) and its 1 s check. */
async function slowlorisPhase(port: number, count: number, tally: Tally): Promise<void> {
  await Promise.all(
    Array.from({ length: count }, async () => {
      const exchange = await rawExchange(port, slowHeaders(20), { waitMs: BOUND_MS, chunkDelayMs: 1500 });
      const response = exchange.responses[0];
      tally.requests++;
      if (response?.status !== 408 || !exchange.closed || exchange.ms > 13_000) {
        tally.violations.push(`slowloris: ${response?.status ?? 'no answer'} after ${exchange.ms} ms, closed ${exchange.closed}`);
      }
    }),
  );
}

/**
 * Eight seconds of /v1/check requests on one keep-alive connection while /livez is polled: with
 * `expensive`, each carries up to eight patterns, half the most expensive allowed (docs/http-api.md#pattern-limits)
 * and half random ones in and beyond the limits; without, as many plain names.
 */
async function patternPhase(port: number, url: string, rng: Prng, tally: Tally, expensive: boolean): Promise<{ requests: number; livez: LatencyStats; failures: number }> {
  const probe = pollLatency(`${url}/livez`);
  const connection = new FuzzConnection(port);
  let requests = 0;
  const until = Date.now() + 8_000;
  while (Date.now() < until) {
    const values = Array.from({ length: rng.int(1, 8) }, (_, i) => {
      const name = `p${expensive ? 'e' : 'b'}${requests}x${i}`;
      if (!expensive) return name;
      return rng.chance(0.5) ? `${name}${'\\pL{100}'.repeat(4)}` : randomPattern(rng);
    });
    const target = `/v1/check?${values.map((v) => `container=${encodeURIComponent(v)}`).join('&')}`;
    const head = `POST ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${CREDENTIALS.token}\r\nContent-Length: 0\r\n\r\n`;
    judge(tally, `patterns ${target.slice(0, 100)}`, await connection.send(Buffer.from(head, 'latin1'), false, BOUND_MS), false);
    requests++;
  }
  connection.close();
  const livez = latencyStats(await probe.stop());
  return { requests, livez, failures: probe.failures() };
}

t.test(`HTTP API fuzz (seed ${SEED})`, async (t) => {
  const s = await scenario(t, 'fuzz');
  if (!s) return;
  t.comment(`seed ${SEED} (TIDEWATCH_FUZZ_SEED=${SEED} replays this run)`);
  await runningOn(s, 'app');
  await runningOn(s, 'web');
  const service = await startFullApi(s.env.dockerHost, CREDENTIALS, [
    '--http-api-check-timeout', '5s',
    '--http-api-update-timeout', '5s',
    '--http-api-events-max-subscribers', '4',
    ...routeOptions((await runBinary(['--help'])).stdout, CREDENTIALS),
    // Only this test's containers: a fuzzed POST /v1/update must never replace another test's on the shared engine.
    `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop());
  const pid = service.child.pid as number;
  const port = portOf(service.url);
  const routes = enabledRoutes(await swaggerPaths(service));
  t.comment(`routes fuzzed: ${routes.map((r) => `${r.method} ${r.path}`).join(', ')}`);
  const tally: Tally = { requests: 0, violations: [], statuses: new Map() };
  const rssStart = rssBytes(pid);
  const heap = () => heapUsedBytes(service.url, CREDENTIALS.token).then((m) => `heap ${mib(m.heap)} external ${mib(m.external)}`);
  const heapStart = await heap();

  // 1. Random requests on keep-alive connections, malformed ones and slowloris, all at once.
  const started = Date.now();
  const [unannounced] = await Promise.all([
    randomPhase(port, SEED, routes, tally, started + RANDOM_PHASE_MS),
    malformedPhase(port, new Prng(SEED + 1), tally, 240),
    slowlorisPhase(port, 24, tally),
  ]);
  t.comment(`random, malformed and slowloris phase: ${tally.requests} requests in ${Date.now() - started} ms`);
  t.comment(`statuses: ${[...tally.statuses].sort(([a], [b]) => a - b).map(([k, v]) => `${k}×${v}`).join(' ')}`);
  t.equal(unannounced, 0, 'no connection closed after an answer that kept it alive');
  t.comment(`memory: ${heapStart} at the start; ${await heap()} after the random phase (RSS ${mib(rssBytes(pid))})`);

  // 2. Expensive patterns: over the limits and the most expensive allowed, while /livez is polled; first
  // the same requests with plain names, for the machine's own latency at this moment.
  await fetch(`${service.url}/v1/check?container=warm-.*`, { method: 'POST', headers: { authorization: `Bearer ${CREDENTIALS.token}` } });
  const baseline = await patternPhase(port, service.url, new Prng(SEED + 2), tally, false);
  const rssBefore = rssBytes(pid);
  const heapBefore = await heapUsedBytes(service.url, CREDENTIALS.token);
  const patterns = await patternPhase(port, service.url, new Prng(SEED + 2), tally, true);
  const livez = patterns.livez;
  const rssAfter = rssBytes(pid);
  const load = loadAverage();
  t.comment(`baseline (plain names): ${baseline.requests} requests; /livez ${formatStats(baseline.livez)}`);
  t.comment(`expensive-pattern phase: ${patterns.requests} requests; /livez ${formatStats(livez)}; load ${load}`);
  t.comment(`RSS across the pattern phase: before ${mib(rssBefore)}, after ${mib(rssAfter)}`);
  t.equal(patterns.failures, 0, '/livez answered 200 throughout');
  const verdict = livezVerdict(baseline.livez, livez);
  t.ok(verdict.ok, `/livez during the pattern phase: ${verdict.rule}`);
  // What the service holds (heap used and external memory, once collected) stays flat; RSS also counts heap
  // V8 committed and keeps after a burst (Node 24 keeps more), so it is bounded loosely.
  const held = await settledHeldBytes(service.url, CREDENTIALS.token, heapBefore, 48 * 1024 * 1024);
  t.ok(held < 48 * 1024 * 1024, `heap used and external memory settled ${mib(held)} above the pattern phase's start (bound 48 MiB)`);
  t.ok(rssAfter - rssBefore < 256 * 1024 * 1024, `RSS grew ${mib(rssAfter - rssBefore)} across the pattern phase (bound 256 MiB)`);

  // 3. Over-subscription of the event stream: documented 503s, and every slot comes back.
  const streams = await Promise.all(
    Array.from({ length: 7 }, () => fetch(`${service.url}/v1/events?access_token=${CREDENTIALS.eventsToken}`, { signal: AbortSignal.timeout(3000) }).catch(() => undefined)),
  );
  const codes = streams.map((r) => r?.status);
  tally.requests += streams.length;
  t.equal(codes.filter((c) => c === 200).length, 4, `four subscribers (the limit), the rest 503: ${codes.join(',')}`);
  t.equal(codes.filter((c) => c === 503).length, 3);
  for (const r of streams) await r?.body?.cancel().catch(() => undefined);

  const rssEnd = rssBytes(pid);
  t.comment(`memory at the end: ${await heap()} (RSS ${mib(rssEnd)})`);
  t.comment(`FIGURES seed=${SEED} requests=${tally.requests} rss_start=${mib(rssStart)} rss_end=${mib(rssEnd)} ` +
    `pattern_phase_rss=${mib(rssBefore)}->${mib(rssAfter)} livez_p50=${livez.p50.toFixed(1)}ms livez_p99=${livez.p99.toFixed(1)}ms ` +
    `livez_max=${livez.max.toFixed(1)}ms loadavg="${load}"`);
  t.same(tally.violations, [], `no violations in ${tally.requests} requests`);
  t.ok(tally.requests > 500, `enough requests were made (${tally.requests})`);

  const log = JSON.stringify(service.logs) + service.stderr.join('');
  t.notOk(log.includes(CREDENTIALS.token), 'the main token is never logged');
  t.notOk(log.includes(CREDENTIALS.eventsToken), 'the events token is never logged');
  t.notOk(log.includes(CREDENTIALS.hookToken) || log.includes(CREDENTIALS.hookSecret), 'no webhook secret is logged');
  t.equal((await fetch(`${service.url}/livez`)).status, 200, 'the service is still up');
  t.equal(service.child.exitCode, null);
});
