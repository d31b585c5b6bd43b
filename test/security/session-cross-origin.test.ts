// Threat model row "sessions" (docs/security.md#people-sessions-tokens-sign-in): a browser sends the session
// cookie with any request a page makes, so a hostile page could make a signed-in person's browser update or roll
// back containers. A state-changing request that carries a session is refused with 403 unless its Origin is the
// API's own (or the public URL's, or listed in --http-api-cors-origins); `Origin: null` and a cross-site fetch
// without Origin are refused too. Fails when the check in plugins/http-api/guards/session-origin.ts is removed.
import t from 'tap';
import { createTidewatch } from '../../core/index.js';
import { PEOPLE, type People } from '../../contracts/index.js';
import { createHttpApiPlugin } from '../../plugins/http-api/index.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { stubPlugin, TOKEN } from '../plugins/http-api/helpers/harness.js';

const SESSION = 'session-of-ana-0123456789';

/** A people service that knows one session: an operator's. */
const people: People = {
  authenticateToken: () => ({ status: 'unknown' }),
  authenticateSession: (id) =>
    id === SESSION ? { status: 'ok', principal: { actor: { kind: 'oidc', name: 'ana' }, role: 'operator', via: 'session' } } : { status: 'unknown' },
  sessionCookie: 'tidewatch_session',
  sso: true,
  publicOrigin: 'https://tidewatch.example',
};

t.test('a session is refused from a hostile origin on every state-changing route', async (t) => {
  const api = createHttpApiPlugin();
  const logger = memoryLogger();
  const tw = await createTidewatch({
    logger,
    plugins: [
      { plugin: { name: 'people-stub', apply: (core) => core.services.provide(PEOPLE, people) }, options: {} },
      stubPlugin({ targets: [], staleness: new Map(), apply: async (plan) => ({ target: plan.target, outcome: 'updated' }), ready: async () => undefined }),
      { plugin: api, options: { endpoints: ['check', 'update', 'containers'], token: TOKEN, host: '127.0.0.1', port: 0, rateLimit: 0, corsOrigins: ['https://ops.example'] } },
    ],
  } as Parameters<typeof createTidewatch>[0]);
  t.teardown(() => tw.close());
  const url = api.address?.url as string;
  const post = (path: string, headers: Record<string, string>) =>
    fetch(`${url}${path}`, { method: 'POST', headers: { cookie: `tidewatch_session=${SESSION}`, ...headers } }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string } }));

  for (const path of ['/v1/check', '/v1/update']) {
    const hostile = await post(path, { origin: 'https://evil.example' });
    t.equal(hostile.status, 403, `${path}: a hostile Origin is refused`);
    // Refused by the API's origin rule for every state change (docs/http-api.md#browsers-and-other-origins), or by the
    // session's own check behind it: either names the origin.
    t.match(hostile.body.error, /origin "?https:\/\/evil\.example"? (refused for a session|may not change anything)/);
    t.equal((await post(path, { origin: 'null' })).status, 403, `${path}: Origin: null is refused`);
    t.equal((await post(path, { 'sec-fetch-site': 'cross-site' })).status, 403, `${path}: a cross-site fetch without Origin is refused`);
  }
  t.equal((await post('/v1/check', { origin: url })).status, 200, 'the API\'s own origin may');
  // The public URL's origin is not the API's own as this request sees it (no proxy in front): like any other it must
  // be listed in --http-api-cors-origins (docs/http-api.md#browsers-and-other-origins); behind a proxy it is the own.
  t.equal((await post('/v1/check', { origin: 'https://tidewatch.example' })).status, 403, 'an unlisted origin may not, the public URL\'s included');
  t.equal((await post('/v1/check', { origin: 'https://ops.example' })).status, 200, 'a listed CORS origin may');
  t.equal((await post('/v1/check', { 'sec-fetch-site': 'same-origin' })).status, 200, 'a same-origin fetch without Origin may');
  // Whatever the credential: a header token from a hostile origin is refused the same way (docs/security.md#threat-model).
  const withToken = await fetch(`${url}/v1/check`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, origin: 'https://evil.example' } });
  t.equal(withToken.status, 403, 'a bearer token from a hostile origin is refused too');
  t.ok(logger.lines.some((l) => /refused/.test(l.msg ?? '') && (l.obj.ip === '127.0.0.1' || l.obj['client_ip'] === '127.0.0.1' || JSON.stringify(l.obj).includes('127.0.0.1'))), 'each refusal is logged with the client IP');
});
