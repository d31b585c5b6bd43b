// Hostile HTTP against the built binary over raw sockets (docs/http-api.md#malformed-requests-and-timeouts):
// HEAD on the event stream, requests too malformed to parse, a valid request pipelined before garbage,
// requests that never finish arriving, and the cookie fallback behind an empty Authorization header.
import t, { type Test } from 'tap';
import { requireEnv } from '../helpers/env.js';
import { portOf, rawExchange, type RawResponse } from '../helpers/raw-http.js';
import { startFullApi } from '../helpers/service.js';

// A scope no container has: the update this test may cause must never replace another test's container on
// the shared engine (docs/configuration.md, --scope).
const OWN_SCOPE = ['--scope', `hostile-${process.pid}`];

const TOKEN = 'hostile-http-main-token';
const EVENTS_TOKEN = 'hostile-http-events-token';

/** The documented error envelope, and nothing of fastify's own shape. */
function assertEnvelope(t: Test, res: RawResponse | undefined, status: number, code: string): void {
  t.equal(res?.status, status, `status ${status}`);
  t.match(res?.headers['content-type'], /^application\/json/);
  const body = JSON.parse(res?.body ?? '{}') as Record<string, unknown>;
  t.match(body, { error: String, code, api_version: 'v1', timestamp: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ });
  t.notOk('statusCode' in body, 'not fastify\'s default body');
}

t.test('hostile HTTP gets bounded, documented answers', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const service = await startFullApi(env.dockerHost, { token: TOKEN, eventsToken: EVENTS_TOKEN }, ['--http-api-events-max-subscribers', '1', ...OWN_SCOPE]);
  t.teardown(() => service.stop());
  const port = portOf(service.url);
  const logged = () => JSON.stringify(service.logs);

  t.test('HEAD /v1/events answers at once and never holds a subscriber slot', async (t) => {
    for (let i = 0; i < 3; i++) {
      const head = await rawExchange(port, `HEAD /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${EVENTS_TOKEN}\r\n\r\n`, {
        responses: 1,
        headRequests: [true],
        waitMs: 3000,
      });
      t.equal(head.responses[0]?.status, 200, `HEAD ${i}: 200`);
      t.ok(head.ms < 1000, `at once (${head.ms} ms)`);
      t.match(head.responses[0]?.headers['content-type'], /^text\/event-stream/);
      t.equal(head.trailing, '', 'no body');
    }
    // The one slot is free: a real subscriber gets it, and HEAD then says what GET would (503).
    const controller = new AbortController();
    const stream = await fetch(`${service.url}/v1/events`, { headers: { authorization: `Bearer ${EVENTS_TOKEN}` }, signal: controller.signal });
    t.equal(stream.status, 200, 'the slot was not taken by the HEADs');
    const full = await rawExchange(port, `HEAD /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${EVENTS_TOKEN}\r\n\r\n`, {
      responses: 1,
      headRequests: [true],
    });
    t.equal(full.responses[0]?.status, 503, 'HEAD while full: 503 like GET');
    const unauthorized = await rawExchange(port, 'HEAD /v1/events HTTP/1.1\r\nHost: x\r\n\r\n', { responses: 1, headRequests: [true] });
    t.equal(unauthorized.responses[0]?.status, 401);
    controller.abort();
  });

  t.test('malformed requests: the envelope, Connection: close, no body for HEAD', async (t) => {
    const noColon = await rawExchange(port, 'GET /livez HTTP/1.1\r\nHost: x\r\nBad header\r\n\r\n');
    assertEnvelope(t, noColon.responses[0], 400, 'TW_ERR_HTTP_BAD_REQUEST');
    t.equal(noColon.responses[0]?.headers.connection, 'close');
    t.ok(noColon.closed, 'and the connection is closed');

    const latin1 = await rawExchange(port, 'HEAD /caf\xe9 HTTP/1.1\r\nHost: x\r\n\r\n', { headRequests: [true] });
    t.equal(latin1.responses[0]?.status, 400);
    t.equal(latin1.responses[0]?.headers.connection, 'close');
    t.equal(latin1.trailing, '', 'HEAD: no body');
    t.ok(latin1.closed);

    const big = await rawExchange(port, `GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20480)}\r\n\r\n`);
    assertEnvelope(t, big.responses[0], 431, 'TW_ERR_HTTP_HEADERS_TOO_LARGE');
    t.equal(big.responses[0]?.headers.connection, 'close');
    t.ok(big.closed);

    // A keep-alive client: the answer before the bad request keeps the connection, the bad one closes it.
    const keepAlive = await rawExchange(port, 'GET /livez HTTP/1.1\r\nHost: x\r\n\r\nGET /livez HTTP/1.1\r\nHost: x\r\nBad header\r\n\r\n');
    t.same(keepAlive.responses.map((r) => r.status), [200, 400]);
    t.not(keepAlive.responses[0]?.headers.connection, 'close', 'the first answer keeps the connection');
    t.equal(keepAlive.responses[1]?.headers.connection, 'close', 'the last announces the close');
    t.ok(keepAlive.closed);
  });

  t.test('a complete request before garbage on the same connection is answered first', async (t) => {
    for (const path of ['/v1/check', '/v1/update?container=hostile-http-none']) {
      const res = await rawExchange(
        port,
        `POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 0\r\n\r\nGARBAGE\r\n\r\n`,
        { waitMs: 20_000 },
      );
      t.same(res.responses.map((r) => r.status), [200, 400], `${path}: its own answer, then the garbage's`);
      t.match(JSON.parse(res.responses[0]?.body ?? '{}'), { api_version: 'v1' });
      assertEnvelope(t, res.responses[1], 400, 'TW_ERR_HTTP_BAD_REQUEST');
      t.equal(res.responses[1]?.headers.connection, 'close');
      t.ok(res.closed);
    }
    t.notMatch(logged(), /the client closed the request/, 'no run was cut as if the client had left');
  });

  t.test('requests that never finish arriving get 408 within the documented time', async (t) => {
    const [cutBody, slowHeaders] = await Promise.all([
      // The body: 15 s from the first byte, checked every second.
      rawExchange(port, `POST /v1/check HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 100\r\n\r\nabc`, {
        waitMs: 25_000,
      }),
      // Slowloris: a header line every 2 s, never the blank line; headers have 10 s.
      rawExchange(port, ['GET /livez HTTP/1.1\r\n', ...Array.from({ length: 10 }, (_, i) => `X-Slow-${i}: 1\r\n`)], {
        waitMs: 25_000,
        chunkDelayMs: 2000,
      }),
    ]);
    assertEnvelope(t, cutBody.responses[0], 408, 'TW_ERR_HTTP_REQUEST_TIMEOUT');
    t.equal(cutBody.responses[0]?.headers.connection, 'close');
    t.ok(cutBody.closed, 'closed');
    t.ok(cutBody.ms >= 14_000 && cutBody.ms < 18_000, `a cut body: 408 after ${cutBody.ms} ms (15 s + the 1 s check)`);
    assertEnvelope(t, slowHeaders.responses[0], 408, 'TW_ERR_HTTP_REQUEST_TIMEOUT');
    t.equal(slowHeaders.responses[0]?.headers.connection, 'close');
    t.ok(slowHeaders.closed);
    t.ok(slowHeaders.ms >= 9_000 && slowHeaders.ms < 13_000, `slow headers: 408 after ${slowHeaders.ms} ms (10 s + the 1 s check)`);
  });

  t.test('the cookie fallback only without any Authorization header', async (t) => {
    const ask = (headers: string) =>
      rawExchange(port, `POST /v1/check?container=hostile-http-none HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n${headers}\r\n`, {
        responses: 1,
        waitMs: 20_000,
      }).then((r) => r.responses[0]?.status);
    t.equal(await ask(`Cookie: access_token=${TOKEN}\r\n`), 200, 'no header: the cookie is read');
    t.equal(await ask(`Authorization:\r\nCookie: access_token=${TOKEN}\r\n`), 401, 'an empty header decides');
    t.equal(await ask(`Authorization: Bearer\r\nCookie: access_token=${TOKEN}\r\n`), 401, 'a header without a token decides');
    t.equal(await ask(`Authorization: Bearer wrong\r\nCookie: access_token=${TOKEN}\r\n`), 401);
    const events = await rawExchange(port, `HEAD /v1/events?access_token=${EVENTS_TOKEN} HTTP/1.1\r\nHost: x\r\nAuthorization:\r\n\r\n`, {
      responses: 1,
      headRequests: [true],
    });
    t.equal(events.responses[0]?.status, 401, 'events: an empty header decides over the query token too');
  });

  t.test('the service is still up and never logged a token', async (t) => {
    t.equal((await fetch(`${service.url}/livez`)).status, 200);
    t.notMatch(logged(), TOKEN);
    t.notMatch(logged(), EVENTS_TOKEN);
  });
});
