// The allowlist, 404/405, body limit and the error shape (docs/http-api-contract.md §4, §7; docs/interface.md §3–4).
import t, { type Test } from 'tap';
import { bearer, startApi } from './helpers/harness.js';

const isErrorBody = (t: Test, body: Record<string, unknown>, what: string) =>
  t.same(Object.keys(body).sort(), ['api_version', 'code', 'error', 'timestamp'], `${what}: JSON error body`);

t.test('a route exists only when its endpoint is enabled; health probes always do', async (t) => {
  const h = await startApi({ endpoints: ['check'] });
  t.teardown(() => h.close());
  const app = h.api.server!;
  for (const [method, url] of [
    ['POST', '/v1/update'],
    ['GET', '/v1/events'],
    ['GET', '/v1/metrics'],
    ['GET', '/v1/containers'],
    ['GET', '/v1/config'],
    ['GET', '/v1/history'],
    ['GET', '/v1/status'],
    ['GET', '/v1/containers/details'],
    ['GET', '/v1/images'],
    ['GET', '/swagger/index.html'],
    ['GET', '/nope'],
  ] as const) {
    const res = await app.inject({ method, url, headers: bearer() });
    t.equal(res.statusCode, 404, `${method} ${url} is 404 when disabled`);
    isErrorBody(t, res.json(), `${method} ${url}`);
  }
  t.equal((await app.inject({ method: 'POST', url: '/v1/check', headers: bearer() })).statusCode, 200);
  for (const probe of ['/livez', '/readyz', '/startupz']) {
    t.equal((await app.inject({ method: 'GET', url: probe })).statusCode, 200, `${probe} without health in the list`);
  }
});

t.test('405 for a wrong method on a known path, 404 for near misses', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  const app = h.api.server!;
  let res = await app.inject({ method: 'GET', url: '/v1/check', headers: bearer() });
  t.equal(res.statusCode, 405);
  t.equal(res.headers.allow, 'POST');
  isErrorBody(t, res.json(), '405');
  res = await app.inject({ method: 'DELETE', url: '/livez' });
  t.equal(res.statusCode, 405, 'probes answer GET and HEAD only');
  t.equal(res.headers.allow, 'GET, HEAD');
  res = await app.inject({ method: 'GET', url: '/v1/check?x=1' });
  t.equal(res.statusCode, 405, 'the query string does not hide the path');
  t.equal((await app.inject({ method: 'POST', url: '/v1/check/', headers: bearer() })).statusCode, 404, 'strict routing');
  t.equal((await app.inject({ method: 'POST', url: '/V1/check', headers: bearer() })).statusCode, 404, 'case-sensitive');
});

t.test('bodies above 1 MiB: 413 with the JSON error body; any media type below it', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  const app = h.api.server!;
  const big = 'x'.repeat(1024 * 1024 + 1);
  let res = await app.inject({ method: 'POST', url: '/v1/check', headers: { ...bearer(), 'content-type': 'text/plain' }, payload: big });
  t.equal(res.statusCode, 413);
  isErrorBody(t, res.json(), '413');
  res = await app.inject({ method: 'POST', url: '/v1/check', headers: { ...bearer(), 'content-type': 'application/json' }, payload: big });
  t.equal(res.statusCode, 413, 'JSON too');
  res = await app.inject({ method: 'GET', url: '/livez', headers: { 'content-type': 'text/plain' }, payload: big });
  t.equal(res.statusCode, 413, 'on every route');

  // Chunked, so no Content-Length announces it: the parser's own limit still applies.
  const chunked = await fetch(`${h.url}/v1/check`, {
    method: 'POST',
    headers: { ...bearer(), 'content-type': 'application/octet-stream' },
    body: new ReadableStream({
      start(controller) {
        for (let i = 0; i < 17; i++) controller.enqueue(new Uint8Array(64 * 1024));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  t.equal(chunked.status, 413);
  isErrorBody(t, (await chunked.json()) as Record<string, unknown>, 'chunked 413');

  for (const [type, payload] of [
    ['application/json', '{not json'],
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'a=1'],
  ]) {
    res = await app.inject({ method: 'POST', url: '/v1/check', headers: { ...bearer(), 'content-type': type as string }, payload });
    t.equal(res.statusCode, 200, `a small ${type} body is ignored`);
  }
  res = await app.inject({ method: 'POST', url: '/v1/check', headers: bearer(), payload: 'no content type' });
  t.equal(res.statusCode, 200, 'a body without a media type is ignored');
});
