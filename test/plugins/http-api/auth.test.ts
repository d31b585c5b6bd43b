// Main-token authentication (docs/http-api-contract.md §5, docs/interface.md §4): Bearer header, a raw Authorization value
// (as Swagger UI sends it), the access_token cookie; 401 with the JSON error body; failures logged
// with the client IP and never the token.
import t from 'tap';
import { startApi, TOKEN } from './helpers/harness.js';

t.test('main token sources', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  const app = h.api.server!;
  const status = async (headers: Record<string, string>, url = '/v1/check') =>
    (await app.inject({ method: 'POST', url, headers })).statusCode;

  t.equal(await status({ authorization: `Bearer ${TOKEN}` }), 200, 'Bearer header');
  t.equal(await status({ authorization: `bearer ${TOKEN}` }), 200, 'scheme is case-insensitive');
  t.equal(await status({ authorization: TOKEN }), 200, 'raw value without Bearer (Swagger UI)');
  t.equal(await status({ cookie: `theme=dark; access_token=${TOKEN}` }), 200, 'access_token cookie');
  t.equal(await status({ cookie: `access_token=${encodeURIComponent(TOKEN)}` }), 200, 'URL-encoded cookie value');

  t.equal(await status({}), 401, 'missing');
  t.equal(await status({ authorization: 'Bearer nope' }), 401, 'wrong Bearer');
  t.equal(await status({ authorization: `Bearer ${TOKEN}x` }), 401, 'longer token');
  t.equal(await status({ authorization: `Bearer ${TOKEN.slice(0, -1)}` }), 401, 'shorter token');
  t.equal(await status({ cookie: 'access_token=nope' }), 401, 'wrong cookie');
  t.equal(await status({}, `/v1/check?access_token=${TOKEN}`), 401, 'the query parameter is for the events token only');
  t.equal(
    await status({ authorization: 'Bearer nope', cookie: `access_token=${TOKEN}` }),
    401,
    'a header that is present decides; the cookie is a fallback, not a second guess',
  );
  t.equal(await status({ authorization: `Bearer ${'e'}` }), 401);

  const res = await app.inject({ method: 'POST', url: '/v1/check', headers: { authorization: 'Bearer nope' } });
  t.match(res.headers['content-type'], /^application\/json/);
  t.same(Object.keys(res.json()).sort(), ['api_version', 'code', 'error', 'timestamp']);
  t.equal(res.json().api_version, 'v1');
});

t.test('failed attempts are logged with the client IP, never the token', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  await fetch(`${h.url}/v1/check`, { method: 'POST', headers: { authorization: 'Bearer secret-guess-123' } });
  await fetch(`${h.url}/v1/check`, { method: 'POST' });
  const failures = h.logs.filter((l) => l.msg === 'HTTP API authentication failed');
  t.equal(failures.length, 2);
  t.equal(failures[0]?.obj.ip, '127.0.0.1');
  t.equal(failures[0]?.obj.reason, 'invalid token');
  t.equal(failures[1]?.obj.reason, 'missing token');
  t.equal(failures[0]?.level, 'warn');
  const everything = JSON.stringify(h.logs);
  t.notMatch(everything, /secret-guess-123/, 'the presented token is never logged');
  t.notMatch(everything, new RegExp(TOKEN), 'the real token is never logged');
});

t.test('the plugin refuses to start without the tokens its endpoints need', async (t) => {
  await t.rejects(startApi({ endpoints: ['check'], token: undefined }), /--http-api-token is required/);
  await t.rejects(startApi({ endpoints: ['events'], eventsToken: undefined }), /--http-api-events-token is required/);
  const h = await startApi({ endpoints: ['health'], token: undefined, eventsToken: undefined });
  t.teardown(() => h.close());
  t.equal((await fetch(`${h.url}/livez`)).status, 200, 'health alone needs no token');
});
