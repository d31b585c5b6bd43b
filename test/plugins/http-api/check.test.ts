// POST /v1/check: the record of docs/http-api-contract.md §2.2 from the core's results, filters, timeouts (docs/http-api-contract.md §4.2,
// docs/interface.md §4–5).
import t from 'tap';
import { bearer, startApi, target } from './helpers/harness.js';
import { asStaleness } from '../../helpers/staleness.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const D3 = `sha256:${'3'.repeat(64)}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('records map every field of docs/http-api-contract.md §2.2', async (t) => {
  const h = await startApi(
    {},
    {
      targets: [
        target('web', {
          image: '127.0.0.1:5101/demo/web:latest',
          // The repo digest of the image's own repository wins over another registry's entry.
          repoDigests: [`mirror.example:5000/demo/web@${D3}`, `127.0.0.1:5101/demo/web@${D1}`],
          imageLabels: {
            'org.opencontainers.image.source': 'https://git.example/demo/web',
            'org.opencontainers.image.url': 'https://web.example',
            'org.opencontainers.image.documentation': 'https://docs.example',
            'org.opencontainers.image.version': '1.2.3',
            'org.opencontainers.image.revision': 'abc123',
          },
        }),
        target('site', { labels: { 'tidewatch.git.repo': 'https://git.example/site', 'tidewatch.git.ref': 'main' } }),
        target('broken', { repoDigests: [`127.0.0.1:5101/demo/broken@${D1}`] }),
        target('local'),
      ],
      staleness: new Map([
        ['web', { source: 'registry', stale: true, latestDigest: D2 }],
        ['site', asStaleness({ source: 'git', stale: true, git: { repo: 'https://git.example/site', ref: 'main', commit: 'def456', changelog: 'https://git.example/site/compare' } })],
        ['broken', { source: 'registry', stale: false, error: 'registry answered 500' }],
        ['local', { source: 'label-staleness', stale: false, latestImageId: 'sha256:local' }],
      ]),
    },
  );
  t.teardown(() => h.close());
  const res = await h.api.server!.inject({ method: 'POST', url: '/v1/check', headers: bearer() });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  const body = res.json();
  t.equal(body.api_version, 'v1');
  t.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.equal(body.count, 4);
  const [web, site, broken, local] = body.containers;
  t.same(web, {
    name: 'web',
    image: '127.0.0.1:5101/demo/web:latest',
    image_id: web.image_id,
    digest: D1,
    update_available: true,
    latest_image_id: '',
    latest_digest: D2,
    update_source: 'registry',
    oci_source: 'https://git.example/demo/web',
    image_url: 'https://web.example',
    documentation: 'https://docs.example',
    current_image_version: '1.2.3',
    current_revision: 'abc123',
    timestamp: web.timestamp,
  });
  t.ok(!Number.isNaN(Date.parse(web.timestamp)));
  t.same(site, {
    name: 'site',
    image: site.image,
    image_id: site.image_id,
    digest: '',
    update_available: true,
    latest_image_id: '',
    latest_digest: '',
    update_source: 'git',
    git_repo: 'https://git.example/site',
    git_ref: 'main',
    git_commit: 'def456',
    changelog: 'https://git.example/site/compare',
    timestamp: site.timestamp,
  });
  t.equal(broken.error, 'registry answered 500', 'a failed check is a record with error, not a failed request');
  t.equal(broken.update_available, false);
  t.equal(broken.digest, D1);
  t.notOk('error' in web, 'error only when set');
  t.equal(local.update_source, 'label-staleness', "a plugin's own watch path is its update_source");
  t.equal(local.latest_image_id, 'sha256:local');
});

t.test('a Git-labelled target reports git even when its check failed', async (t) => {
  const h = await startApi(
    {},
    {
      targets: [target('site', { labels: { 'com.centurylinklabs.watchtower.git.repo': 'https://git.example/site' } })],
      // The core reports a failed check on the target's watch path (test/core/plugin-contract.test.ts).
      staleness: new Map([['site', { source: 'git', stale: false, error: 'boom' }]]),
    },
  );
  t.teardown(() => h.close());
  const body = (await h.api.server!.inject({ method: 'POST', url: '/v1/check', headers: bearer() })).json();
  t.equal(body.containers[0].update_source, 'git');
  t.equal(body.containers[0].git_repo, 'https://git.example/site');
  t.equal(body.containers[0].error, 'boom');
});

t.test('image and container filters: repeatable, comma-separated, both must match', async (t) => {
  const h = await startApi(
    {},
    {
      targets: [
        target('web-1', { image: 'nginx:1.25' }),
        target('web-2', { image: 'nginx:1.26' }),
        target('db', { image: 'postgres:16' }),
        target('cache', { image: 'redis:7' }),
      ],
    },
  );
  t.teardown(() => h.close());
  const names = async (query: string) =>
    (await h.api.server!.inject({ method: 'POST', url: `/v1/check${query}`, headers: bearer() }))
      .json()
      .containers.map((c: { name: string }) => c.name);
  t.same(await names(''), ['web-1', 'web-2', 'db', 'cache']);
  t.same(await names('?image=nginx'), ['web-1', 'web-2'], 'an untagged image matches every tag');
  t.same(await names('?image=nginx:1.25'), ['web-1'], 'a tagged image matches only that tag');
  t.same(await names('?image=postgres,redis'), ['db', 'cache'], 'comma-separated');
  t.same(await names('?container=db&container=cache'), ['db', 'cache'], 'repeated');
  t.same(await names('?container=web-.*'), ['web-1', 'web-2'], 'RE2 pattern anchored at both ends');
  t.same(await names('?container=web'), [], 'anchored: a prefix alone does not match');
  t.same(await names('?container=web-[&container=db'), ['db'], 'an invalid pattern is an exact name');
  t.same(await names('?image=nginx&container=web-2'), ['web-2'], 'both kinds must match');
});

t.test('timeout: Go duration, capped, 400 on bad values, 503 on expiry', async (t) => {
  const h = await startApi(
    { checkTimeoutMs: 300 },
    {
      targets: [target('slow')],
      staleness: new Map([
        [
          'slow',
          async () => {
            await sleep(3000);
            return { source: 'registry', stale: false };
          },
        ],
      ]),
    },
  );
  t.teardown(() => h.close());
  const post = (query: string) => h.api.server!.inject({ method: 'POST', url: `/v1/check${query}`, headers: bearer() });

  let res = await post('?timeout=100ms');
  t.equal(res.statusCode, 503);
  t.same(Object.keys(res.json()).sort(), ['api_version', 'code', 'error', 'timestamp']);
  t.equal(res.json().code, 'TW_ERR_TIMEOUT');
  t.equal(res.json().error, 'check timed out after 100ms');

  const started = Date.now();
  res = await post('?timeout=1h');
  t.equal(res.statusCode, 503);
  t.equal(res.json().error, 'check timed out after 300ms', 'capped at the configured check timeout');
  t.ok(Date.now() - started < 2000, 'the answer does not wait for the abandoned run');

  res = await post('');
  t.equal(res.json().error, 'check timed out after 300ms', 'the configured timeout is the default');

  for (const bad of ['abc', '0', '-1s', '10', '1.5', '5x', '']) {
    res = await post(`?timeout=${encodeURIComponent(bad)}`);
    t.equal(res.statusCode, 400, `timeout=${bad}`);
    t.match(res.json().error, /^invalid 'timeout' parameter: /);
    t.equal(res.json().api_version, 'v1');
  }
  res = await post('?timeout=1s&timeout=2s');
  t.equal(res.statusCode, 400, 'a repeated timeout is ambiguous');
});

t.test('a failing run is a 500 with the error body', async (t) => {
  const h = await startApi(
    {},
    {
      beforeDiscover: async () => {
        throw new Error('engine unreachable');
      },
    },
  );
  t.teardown(() => h.close());
  const res = await h.api.server!.inject({ method: 'POST', url: '/v1/check', headers: bearer() });
  t.equal(res.statusCode, 500);
  t.match(res.json(), { error: /engine unreachable/, api_version: 'v1' });
});

t.test('over a real socket', async (t) => {
  const h = await startApi({}, { targets: [target('web')] });
  t.teardown(() => h.close());
  t.match(h.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const res = await fetch(`${h.url}/v1/check?container=web`, { method: 'POST', headers: bearer() });
  t.equal(res.status, 200);
  const body = (await res.json()) as { count: number; containers: { name: string }[] };
  t.equal(body.count, 1);
  t.equal(body.containers[0]?.name, 'web');
  const denied = await fetch(`${h.url}/v1/check`, { method: 'POST' });
  t.equal(denied.status, 401);
  t.match(await denied.json(), { error: String, api_version: 'v1', timestamp: String });
});
