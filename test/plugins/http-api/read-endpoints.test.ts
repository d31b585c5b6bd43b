// GET /v1/metrics, /v1/containers, /v1/config, /v1/history over real HTTP (docs/interface.md §4), and the
// Watchtower fork's /v1/status, /v1/containers/details, /v1/images (docs/http-api.md).
import t from 'tap';
import type { Staleness } from '../../../core/index.js';
import { LastChecks } from '../../../plugins/http-api/last-checks.js';
import { parseEndpoints } from '../../../plugins/http-api/option-parsers.js';
import { bearer, sleep, startApi, target } from './helpers/harness.js';

const STALE: Staleness = { source: 'registry', stale: true };
const get = (url: string, headers: Record<string, string> = bearer()) => fetch(url, { headers });

t.test('metrics: Prometheus text with the tidewatch_ metrics and the Node.js defaults', async (t) => {
  const h = await startApi(
    {},
    {
      targets: [target('web'), target('db'), target('cache')],
      staleness: new Map([
        ['web', STALE],
        ['db', STALE],
      ]),
      apply: async (plan) =>
        plan.target.name === 'db'
          ? { target: plan.target, outcome: 'failed', error: 'boom', rolledBack: true }
          : { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' },
    },
  );
  t.teardown(() => h.close());
  await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() });
  h.tw.emit('registry_request', { registry: '127.0.0.1:5101', method: 'HEAD', code: '200' });
  h.tw.emit('registry_request', { registry: '127.0.0.1:5101', method: 'HEAD', code: '200' });
  h.tw.emit('registry_request', { registry: '127.0.0.1:5101', method: 'GET', code: '401' });

  const res = await get(`${h.url}/v1/metrics`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain/);
  const text = await res.text();
  const value = (line: string) => {
    const found = text.split('\n').find((l) => l.startsWith(`${line} `));
    return found === undefined ? undefined : Number(found.slice(line.length + 1));
  };
  t.equal(value('tidewatch_scans_total{kind="update",result="success"}'), 1);
  t.equal(value('tidewatch_scans_total{kind="check",result="success"}'), 1);
  t.equal(value('tidewatch_containers_scanned'), 3);
  t.equal(value('tidewatch_containers_updated'), 1);
  t.equal(value('tidewatch_containers_failed'), 1);
  t.equal(value('tidewatch_containers_restarted'), 0);
  t.equal(value('tidewatch_containers_skipped'), 0);
  t.equal(value('tidewatch_container_updates_total{result="success"}'), 1);
  t.equal(value('tidewatch_container_updates_total{result="failure"}'), 1);
  t.equal(value('tidewatch_registry_requests_total{registry="127.0.0.1:5101",method="HEAD",code="200"}'), 2);
  t.equal(value('tidewatch_registry_requests_total{registry="127.0.0.1:5101",method="GET",code="401"}'), 1);
  t.equal(value('tidewatch_scan_duration_seconds_count{kind="update"}'), 1);
  t.match(text, /# TYPE tidewatch_scan_duration_seconds histogram/);
  t.match(text, /^process_cpu_user_seconds_total /m, 'process defaults');
  t.match(text, /^nodejs_heap_size_total_bytes /m, 'Node.js defaults');

  const failing = await startApi({}, { beforeDiscover: async () => Promise.reject(new Error('down')) });
  t.teardown(() => failing.close());
  await fetch(`${failing.url}/v1/update`, { method: 'POST', headers: bearer() });
  t.match(await (await get(`${failing.url}/v1/metrics`)).text(), /tidewatch_scans_total\{kind="update",result="failure"\} 1/);

  t.equal((await get(`${h.url}/v1/metrics`, {})).status, 401, 'main token required');
});

t.test('containers: the selected targets, exact name and image filters, [] when none', async (t) => {
  const digest = `sha256:${'a'.repeat(64)}`;
  const h = await startApi(
    {},
    {
      targets: [
        target('web', {
          image: 'nginx:1.25',
          repoDigests: [`nginx@${digest}`],
          labels: { 'tidewatch.monitor-only': 'true', 'com.centurylinklabs.watchtower.scope': 'prod' },
        }),
        target('site', { labels: { 'tidewatch.git.repo': 'https://git.example/site', 'tidewatch.no-pull': '1' }, state: 'exited' }),
      ],
    },
  );
  t.teardown(() => h.close());
  let res = await get(`${h.url}/v1/containers`);
  t.equal(res.status, 200);
  const body = (await res.json()) as { containers: Record<string, unknown>[]; count: number; api_version: string };
  t.equal(body.count, 2);
  t.equal(body.api_version, 'v1');
  t.same(body.containers[0], {
    name: 'web',
    id: 'id-web',
    image: 'nginx:1.25',
    image_id: body.containers[0]?.image_id,
    digest,
    state: 'running',
    update_source: 'registry',
    monitor_only: true,
    no_pull: false,
    scope: 'prod',
  });
  t.match(body.containers[1], { name: 'site', state: 'exited', update_source: 'git', monitor_only: false, no_pull: true, scope: '', digest: '' });

  const names = async (query: string) =>
    ((await (await get(`${h.url}/v1/containers${query}`)).json()) as { containers: { name: string }[] }).containers.map((c) => c.name);
  t.same(await names('?name=web'), ['web']);
  t.same(await names('?name=we'), [], 'exact, not a pattern');
  t.same(await names('?image=nginx:1.25'), ['web']);
  t.same(await names('?image=nginx'), [], 'exact image reference');
  t.same(await names('?name=web&name=site'), ['web', 'site']);
  res = await get(`${h.url}/v1/containers?name=nobody`);
  const none = (await res.json()) as { containers: unknown; count: number };
  t.same(none.containers, [], 'an empty result is [], never null');
  t.equal(none.count, 0);
  t.equal((await get(`${h.url}/v1/containers`, {})).status, 401);
});

t.test('config: every plugin\'s effective options, secrets redacted', async (t) => {
  const h = await startApi({ rateLimit: 0 });
  t.teardown(() => h.close());
  const res = await get(`${h.url}/v1/config`);
  t.equal(res.status, 200);
  const view = { http_api_token: '<redacted>', http_api_rate_limit: 0, http_api_check_timeout: '5m0s', http_api_tls_cert: '' };
  t.match(await res.json(), { config: view, api_version: 'v1', timestamp: String });
  t.notMatch(JSON.stringify(await (await get(`${h.url}/v1/config`)).json()), /main-token-for-tests|events-token-for-tests/, 'no token value in the view');
  t.equal((await get(`${h.url}/v1/config`, {})).status, 401);
});

t.test('history: oldest first, since/until inclusive, limit, 400 on bad values', async (t) => {
  const h = await startApi({}, { targets: [target('web')] });
  t.teardown(() => h.close());
  for (let i = 0; i < 3; i++) {
    await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
    await sleep(20);
  }
  await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() });
  let res = await get(`${h.url}/v1/history`);
  t.equal(res.status, 200);
  const all = (await res.json()) as { entries: Record<string, never>[]; count: number };
  t.equal(all.count, 4);
  t.same(all.entries.map((e) => e.kind), ['update', 'update', 'update', 'check']);
  // `actor`: the main token started them (docs/people.md#a-name-on-every-decision).
  t.same(Object.keys(all.entries[0] ?? {}).sort(), ['actor', 'finished_at', 'kind', 'run_id', 'started_at', 'summary', 'targeted', 'trigger']);
  t.same(all.entries.map((e) => e.trigger), ['api', 'api', 'api', 'api'], 'each run says the API started it');
  t.same(all.entries[0]?.summary, { scanned: 1, updated: 0, failed: 0, restarted: 0, skipped: 0 });

  const second = all.entries[1]?.started_at as string;
  const third = all.entries[2]?.started_at as string;
  const runIds = async (query: string) =>
    ((await (await get(`${h.url}/v1/history${query}`)).json()) as { entries: { run_id: string }[] }).entries.map((e) => e.run_id);
  const ids = all.entries.map((e) => e.run_id as string);
  t.same(await runIds(`?since=${encodeURIComponent(second)}`), ids.slice(1), 'since is inclusive');
  t.same(await runIds(`?until=${encodeURIComponent(third)}`), ids.slice(0, 3), 'until is inclusive');
  t.same(await runIds(`?since=${encodeURIComponent(second)}&until=${encodeURIComponent(third)}`), ids.slice(1, 3));
  t.same(await runIds('?limit=2'), ids.slice(2), 'limit keeps the most recent');
  t.same(await runIds('?limit=0'), []);
  t.same(await runIds('?since=2000-01-01T00:00:00%2B02:00'), ids, 'offsets are accepted');

  for (const bad of ['since=yesterday', 'since=2025-01-20', 'until=2025-13-45T99:00:00Z', 'since=', 'limit=-1', 'limit=abc', 'limit=1.5']) {
    res = await get(`${h.url}/v1/history?${bad}`);
    t.equal(res.status, 400, bad);
    t.match(await res.json(), { error: /^invalid '(since|until|limit)' parameter/, api_version: 'v1', timestamp: String });
  }
  res = await get(`${h.url}/v1/history?since=2025-02-01T00:00:00Z&until=2025-01-01T00:00:00Z`);
  t.equal(res.status, 400);
  t.match(await res.json(), { error: "invalid time range: 'since' must not be after 'until'" });
  t.equal((await get(`${h.url}/v1/history`, {})).status, 401);

  const failing = await startApi({}, { beforeDiscover: async () => Promise.reject(new Error('down')) });
  t.teardown(() => failing.close());
  await fetch(`${failing.url}/v1/update`, { method: 'POST', headers: bearer() });
  const failed = (await (await get(`${failing.url}/v1/history`)).json()) as { entries: { error?: string }[] };
  t.match(failed.entries[0]?.error, /down/, 'a failed run carries its error');
});

// The Watchtower fork's read endpoints (docs/http-api.md#the-watchtower-forks-read-endpoints): the cases real
// containers cannot show cheaply. Their shapes against real containers: fork-read-endpoints.test.ts.
t.test('status: 204 before an update run, then its summary; a failed run carries its error; checks never count', async (t) => {
  const h = await startApi({}, { targets: [target('web'), target('db')], staleness: new Map([['web', STALE]]) });
  t.teardown(() => h.close());
  await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() });
  let res = await get(`${h.url}/v1/status`);
  t.equal(res.status, 204, 'a check is not an update run');
  t.equal(await res.text(), '');
  await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  res = await get(`${h.url}/v1/status`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  const body = (await res.json()) as Record<string, unknown>;
  t.same(body.summary, { scanned: 2, updated: 1, failed: 0, restarted: 0, skipped: 0 });
  t.equal(body.run_id, h.tw.history.entries().at(-1)?.runId);
  t.notOk('error' in body);

  h.world.beforeDiscover = async () => Promise.reject(new Error('engine unreachable'));
  await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  const failed = (await (await get(`${h.url}/v1/status`)).json()) as Record<string, unknown>;
  t.same(failed.summary, { scanned: 0, updated: 0, failed: 0, restarted: 0, skipped: 0 }, 'zeros, as the fork');
  t.match(failed.error, /engine unreachable/, 'and why');
  t.not(failed.run_id, body.run_id);
  t.equal((await get(`${h.url}/v1/status`, {})).status, 401);
});

t.test('containers/details: flags from either label prefix, the own container, stale false after a failed check', async (t) => {
  const h = await startApi(
    {},
    {
      targets: [
        target('self', { isSelf: true, labels: { 'com.centurylinklabs.watchtower': 'true', 'com.centurylinklabs.watchtower.enable': 'true' } }),
        target('web', { labels: { 'com.centurylinklabs.watchtower.no-pull': 'true', 'tidewatch.scope': 'prod' }, state: 'exited' }),
        target('broken'),
      ],
      staleness: new Map([
        ['web', STALE],
        ['broken', { source: 'registry', stale: true, error: 'registry answered 500' }],
      ]),
    },
  );
  t.teardown(() => h.close());
  await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() });
  const body = (await (await get(`${h.url}/v1/containers/details`)).json()) as { containers: Record<string, unknown>[] };
  const [self, web, broken] = body.containers;
  t.match(self, { name: 'self', watchtower: true, enabled: true, running: true, stale: false, scope: '' });
  t.match(web, { name: 'web', watchtower: false, no_pull: true, monitor_only: false, running: false, stale: true, scope: 'prod' });
  t.match(broken, { name: 'broken', stale: false, checked_at: String }, 'a check that failed found nothing stale');
});

t.test('images: Docker Hub spellings of one name are one entry; distinct ids are distinct entries; sorted', async (t) => {
  const id1 = `sha256:${'1'.repeat(64)}`;
  const id2 = `sha256:${'2'.repeat(64)}`;
  const h = await startApi(
    {},
    {
      targets: [
        target('b', { image: 'docker.io/library/nginx:latest', imageId: id1 }),
        target('a', { image: 'nginx:latest', imageId: id1, repoDigests: [`nginx@sha256:${'d'.repeat(64)}`] }),
        target('c', { image: 'nginx:latest', imageId: id2 }),
        target('d', { image: 'alpine:3.20', imageId: id2 }),
      ],
    },
  );
  t.teardown(() => h.close());
  const body = (await (await get(`${h.url}/v1/images`)).json()) as { images: Record<string, unknown>[]; count: number };
  t.same(body.images, [
    { name: 'alpine:3.20', image_id: id2, digest: '', containers: 1 },
    { name: 'nginx:latest', image_id: id1, digest: `sha256:${'d'.repeat(64)}`, containers: 2 },
    { name: 'nginx:latest', image_id: id2, digest: '', containers: 1 },
  ], 'named as the first container (by name) writes it');
  t.equal(body.count, 3);
  const names = async (query: string) =>
    ((await (await get(`${h.url}/v1/images${query}`)).json()) as { images: { image_id: string }[] }).images.map((i) => i.image_id);
  t.same(await names('?name=docker.io/library/nginx:latest'), [id1], "any container's spelling matches");
  t.same(await names('?name=nginx'), [], 'exact');
  t.same(await names(`?id=${id2}`), [id2, id2]);
  t.same(await names(`?id=${id1}&id=${id2}&name=nginx:latest`), [id1, id2], 'both filters must match');
});

t.test('each read endpoint answers only when its name is enabled; all includes images', async (t) => {
  const cases = [
    { endpoints: ['metrics'], on: ['/v1/metrics', '/v1/status'] },
    { endpoints: ['containers'], on: ['/v1/containers', '/v1/containers/details'] },
    { endpoints: ['images'], on: ['/v1/images'] },
  ] as const;
  const paths = ['/v1/metrics', '/v1/status', '/v1/containers', '/v1/containers/details', '/v1/images'];
  for (const c of cases) {
    const h = await startApi({ endpoints: [...c.endpoints] }, { targets: [target('web')] });
    for (const path of paths) {
      const res = await get(`${h.url}${path}`);
      const on: readonly string[] = c.on;
      if (on.includes(path)) t.ok([200, 204].includes(res.status), `${c.endpoints[0]}: ${path} answers`);
      else {
        t.equal(res.status, 404, `${c.endpoints[0]}: ${path} is 404`);
        t.match(await res.json(), { code: 'TW_ERR_HTTP_NOT_FOUND', api_version: 'v1' });
      }
    }
    await h.close();
  }
  t.ok(parseEndpoints('all', { origin: 'flag', cwd: '/' }).includes('images'));
  t.same(parseEndpoints('Images', { origin: 'env', cwd: '/' }), ['images'], 'a name like any other');
});

t.test('the last-check store forgets the answers not refreshed for longest once full', async (t) => {
  const checks = new LastChecks(2);
  const result = (name: string, stale: boolean) => ({ target: target(name), staleness: { source: 'registry', stale }, checkedAt: new Date() });
  checks.record([result('a', true), result('b', false)]);
  checks.record([result('a', true)]);
  checks.record([result('c', true)]);
  t.equal(checks.get('id-b'), undefined, 'b was refreshed least recently');
  t.equal(checks.get('id-a')?.stale, true);
  t.equal(checks.get('id-c')?.stale, true);
});
