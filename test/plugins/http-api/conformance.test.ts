// The status rows of docs/http-api-contract.md §4 and §7, one by one, over real HTTP. Each row names the place in the
// spec it checks; the detailed behaviour behind a row lives in the topic files beside this one
// (update, check, events, swagger, limits, read-endpoints, cors-tls, health, routing).
import t, { type Test } from 'tap';
import type { Staleness } from '../../../core/index.js';
import { resolvePluginOptions as validatePluginOptions } from '../../../core/plugin.js';
import { createHttpApiPlugin } from '../../../plugins/http-api/index.js';
import { bearer, EVENTS_TOKEN, gate, startApi, target, waitFor, type Harness } from './helpers/harness.js';
import { openStream } from './helpers/sse.js';

const STALE: Staleness = { source: 'registry', stale: true };
const ERROR_KEYS = ['api_version', 'code', 'error', 'timestamp'];

interface Row {
  readonly row: string;
  readonly status: number;
  readonly request: (h: Harness) => Promise<Response>;
  /** Default: the JSON error body of docs/interface.md §4 for >= 400. */
  readonly body?: 'error' | 'empty' | 'json' | 'stream' | 'html' | 'text' | 'yaml';
  readonly headers?: Record<string, RegExp>;
}

const post = (h: Harness, path: string, headers: Record<string, string> = bearer()) =>
  fetch(`${h.url}${path}`, { method: 'POST', headers });
const get = (h: Harness, path: string, headers: Record<string, string> = bearer()) => fetch(`${h.url}${path}`, { headers });

async function checkRow(t: Test, h: Harness, row: Row): Promise<void> {
  const res = await row.request(h);
  t.equal(res.status, row.status, `${row.row}: status ${row.status}`);
  const kind = row.body ?? (row.status >= 400 ? 'error' : 'json');
  if (kind === 'stream') {
    t.equal(res.headers.get('content-type'), 'text/event-stream', `${row.row}: event stream`);
    await res.body?.cancel();
  } else if (kind === 'empty') {
    t.equal(await res.text(), '', `${row.row}: no body`);
  } else if (kind === 'html' || kind === 'text' || kind === 'yaml') {
    const type = { html: /^text\/html/, text: /^text\/plain/, yaml: /^application\/yaml/ }[kind];
    t.match(res.headers.get('content-type'), type, `${row.row}: ${kind}`);
    await res.text();
  } else {
    t.match(res.headers.get('content-type'), /^application\/json/, `${row.row}: JSON`);
    const body = (await res.json()) as Record<string, unknown>;
    t.equal(body.api_version, 'v1', `${row.row}: api_version`);
    t.ok(typeof body.timestamp === 'string' && !Number.isNaN(Date.parse(body.timestamp)), `${row.row}: RFC 3339 timestamp`);
    if (kind === 'error') t.same(Object.keys(body).sort(), ERROR_KEYS, `${row.row}: the error body of docs/http-api-contract.md §2.3`);
  }
  for (const [name, pattern] of Object.entries(row.headers ?? {})) {
    t.match(res.headers.get(name), pattern, `${row.row}: ${name}`);
  }
}

t.test('docs/http-api-contract.md §4 and §7 status rows', async (t) => {
  const h = await startApi(
    { checkTimeoutMs: 60_000, updateTimeoutMs: 60_000, corsOrigins: ['https://dash.example'], eventsMaxSubscribers: 1 },
    { targets: [target('web'), target('db')], staleness: new Map([['web', STALE]]) },
  );
  t.teardown(() => h.close());
  const big = 'x'.repeat(1024 * 1024 + 1);
  const rows: Row[] = [
    { row: '4.1 200 synchronous update completed', status: 200, request: (h) => post(h, '/v1/update') },
    { row: '4.1 202 async=true', status: 202, request: (h) => post(h, '/v1/update?async=true') },
    { row: '4.1 401 missing token', status: 401, request: (h) => post(h, '/v1/update', {}) },
    { row: '4.1 401 invalid token', status: 401, request: (h) => post(h, '/v1/update', bearer('wrong')) },
    { row: '4.1 413 body above 1 MiB', status: 413, request: (h) => fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer(), body: big }) },
    { row: '§7 400 bad async', status: 400, request: (h) => post(h, '/v1/update?async=maybe') },
    { row: '§7 400 bad timeout', status: 400, request: (h) => post(h, '/v1/update?timeout=soon') },
    { row: '4.2 200 check result', status: 200, request: (h) => post(h, '/v1/check') },
    { row: '4.2 401 missing token', status: 401, request: (h) => post(h, '/v1/check', {}) },
    { row: '4.2 413 body above 1 MiB', status: 413, request: (h) => fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer(), body: big }) },
    { row: '4.3 200 stream established', status: 200, body: 'stream', request: (h) => get(h, '/v1/events', bearer(EVENTS_TOKEN)) },
    { row: '4.3 401 missing events token', status: 401, request: (h) => get(h, '/v1/events', {}) },
    { row: '4.3 401 main token is not the events token', status: 401, request: (h) => get(h, '/v1/events') },
    { row: '4.3 403 origin not allowed', status: 403, request: (h) => get(h, '/v1/events', { ...bearer(EVENTS_TOKEN), origin: 'https://evil.example' }) },
    { row: '4.4 200 /swagger/index.html', status: 200, body: 'html', request: (h) => get(h, '/swagger/index.html', {}) },
    { row: '4.4 200 /swagger/', status: 200, body: 'html', request: (h) => get(h, '/swagger/', {}) },
    { row: '4.4 200 /swagger/doc.yaml', status: 200, body: 'yaml', request: (h) => get(h, '/swagger/doc.yaml', {}) },
    { row: '4.4 404 /swagger without the trailing part', status: 404, request: (h) => get(h, '/swagger', {}) },
    { row: '4.4 405 method other than GET', status: 405, request: (h) => post(h, '/swagger/index.html', {}), headers: { allow: /^GET, HEAD$/ } },
    { row: '§4 health /livez', status: 200, request: (h) => get(h, '/livez', {}) },
    { row: '§4 health /readyz', status: 200, request: (h) => get(h, '/readyz', {}) },
    { row: '§4 health /startupz', status: 200, request: (h) => get(h, '/startupz', {}) },
    { row: '§4 /v1/metrics 200', status: 200, body: 'text', request: (h) => get(h, '/v1/metrics') },
    { row: '§4 /v1/metrics 401', status: 401, request: (h) => get(h, '/v1/metrics', {}) },
    { row: '§4 /v1/containers 200', status: 200, request: (h) => get(h, '/v1/containers') },
    { row: '§4 /v1/containers 401', status: 401, request: (h) => get(h, '/v1/containers', {}) },
    { row: '§4 /v1/config 200', status: 200, request: (h) => get(h, '/v1/config') },
    { row: '§4 /v1/config 401', status: 401, request: (h) => get(h, '/v1/config', {}) },
    { row: '§4 /v1/history 200', status: 200, request: (h) => get(h, '/v1/history') },
    { row: '§4 /v1/history 400', status: 400, request: (h) => get(h, '/v1/history?limit=-1') },
    // The Watchtower fork's read endpoints (docs/http-api.md); /v1/update ran above, so /v1/status has a summary.
    { row: 'fork /v1/status 200', status: 200, request: (h) => get(h, '/v1/status') },
    { row: 'fork /v1/status 401', status: 401, request: (h) => get(h, '/v1/status', {}) },
    { row: 'fork /v1/containers/details 200', status: 200, request: (h) => get(h, '/v1/containers/details') },
    { row: 'fork /v1/containers/details 401', status: 401, request: (h) => get(h, '/v1/containers/details', bearer('wrong')) },
    { row: 'fork /v1/images 200', status: 200, request: (h) => get(h, '/v1/images') },
    { row: 'fork /v1/images 401', status: 401, request: (h) => get(h, '/v1/images', {}) },
    { row: 'fork /v1/images 405', status: 405, request: (h) => post(h, '/v1/images'), headers: { allow: /^GET, HEAD$/ } },
    { row: '§7 404 unknown route', status: 404, request: (h) => get(h, '/v2/update') },
    { row: '§7 405 wrong method on a known path', status: 405, request: (h) => get(h, '/v1/update'), headers: { allow: /^POST$/ } },
  ];
  for (const row of rows) await checkRow(t, h, row);

  // 4.3 503: the subscriber limit (1 here) is reached while a stream is open.
  const open = await openStream(`${h.url}/v1/events`, bearer(EVENTS_TOKEN));
  await checkRow(t, h, { row: '4.3 503 subscriber limit', status: 503, request: (h) => get(h, '/v1/events', bearer(EVENTS_TOKEN)) });
  open.close();
});

t.test('docs/http-api-contract.md §4.1 / §7 rows that need a run in progress', async (t) => {
  const held = gate();
  let applies = 0;
  const h = await startApi(
    {},
    {
      targets: [target('web')],
      staleness: new Map([['web', STALE]]),
      apply: async (plan) => {
        applies++;
        await held.promise;
        return { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
      },
    },
  );
  t.teardown(() => h.close());
  const first = post(h, '/v1/update');
  await waitFor(() => applies === 1);
  await checkRow(t, h, {
    row: '4.1 429 full update while another runs',
    status: 429,
    request: (h) => post(h, '/v1/update'),
    headers: { 'retry-after': /^30$/ },
  });
  await checkRow(t, h, {
    row: '4.1 408-or-503: handler timeout is 503 (docs/interface.md §4)',
    status: 503,
    request: (h) => post(h, '/v1/update?container=web&timeout=100ms'),
  });
  await checkRow(t, h, {
    row: '4.2 check timeout is 503 (docs/interface.md §4)',
    status: 503,
    request: async (h) => {
      h.world.staleness.set('web', () => new Promise((resolve) => setTimeout(() => resolve(STALE), 1000)));
      return post(h, '/v1/check?timeout=50ms');
    },
  });
  held.open();
  t.equal((await first).status, 200);
});

t.test('docs/http-api-contract.md §7 500 rows and the per-IP 429', async (t) => {
  const broken = await startApi({ rateLimit: 6 }, { beforeDiscover: async () => Promise.reject(new Error('engine unreachable')) });
  t.teardown(() => broken.close());
  await checkRow(t, broken, { row: '§7 500 update internal error', status: 500, request: (h) => post(h, '/v1/update') });
  await checkRow(t, broken, { row: '§7 500 check internal error', status: 500, request: (h) => post(h, '/v1/check') });
  await checkRow(t, broken, { row: '§4 500 containers internal error', status: 500, request: (h) => get(h, '/v1/containers') });
  await checkRow(t, broken, { row: 'fork 500 containers/details internal error', status: 500, request: (h) => get(h, '/v1/containers/details') });
  await checkRow(t, broken, { row: 'fork 500 images internal error', status: 500, request: (h) => get(h, '/v1/images') });
  await get(broken, '/livez', {});
  await checkRow(t, broken, {
    row: '§8.1 429 per-IP rate limit: no body, Retry-After',
    status: 429,
    body: 'empty',
    request: (h) => post(h, '/v1/update'),
    headers: { 'retry-after': /^\d+$/ },
  });
});

t.test('docs/interface.md §3: defaults and required tokens', async (t) => {
  const plugin = createHttpApiPlugin();
  const options = validatePluginOptions(plugin, {});
  t.match(options, {
    endpoints: [],
    host: '0.0.0.0',
    port: 8080,
    rateLimit: 60,
    proxyHeader: 'X-Forwarded-For',
    checkTimeoutMs: 300_000,
    updateTimeoutMs: 600_000,
    eventsMaxSubscribers: 1000,
    trustedProxies: [],
    corsOrigins: [],
  });
  t.throws(() => validatePluginOptions(plugin, { endpoints: ['bogus'] }), /TW_ERR_PLUGIN_OPTIONS|invalid options/);
  await t.rejects(startApi({ tlsCert: '/x' }), /--http-api-tls-key is missing/);
  for (const endpoint of ['update', 'check', 'metrics', 'containers', 'config', 'history', 'images'] as const) {
    await t.rejects(startApi({ endpoints: [endpoint], token: undefined }), /--http-api-token is required/, `${endpoint} needs the main token`);
  }
  await t.rejects(startApi({ endpoints: ['events'], eventsToken: undefined }), /--http-api-events-token is required/);
  const healthOnly = await startApi({ endpoints: ['health', 'swagger'], token: undefined, eventsToken: undefined });
  t.teardown(() => healthOnly.close());
  t.equal((await get(healthOnly, '/readyz', {})).status, 200, 'health and swagger need no token');
});
