// The Watchtower fork's read endpoints against real containers (docs/http-api.md#the-watchtower-forks-read-endpoints):
// GET /v1/containers/details, /v1/images and /v1/status through a Tidewatch with the real Docker and registry
// plugins on the private engine, `stale` from real checks, a real update run for the status, `[]` for
// empty results, and the token they need.
import t, { type Test } from 'tap';
import { createTidewatch, type Tidewatch } from '../../../core/index.js';
import { dockerPlugin } from '../../../plugins/docker/index.js';
import { createHttpApiPlugin, type HttpApiOptions } from '../../../plugins/http-api/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { pullImage, pushImage, runContainer } from '../../helpers/images.js';
import { QUICK_STOP_CMD, runningOn, scenario, type Scenario } from '../../helpers/scenarios.js';
import { emptyConfigDir } from '../registry/harness.js';
import { TOKEN, bearer } from './helpers/harness.js';
import type { ContainerDetailsView } from '../../../plugins/http-api/routes/container-details.js';

type Details = ContainerDetailsView;
interface ImageEntry {
  name: string;
  image_id: string;
  digest: string;
  containers: number;
}
interface Envelope {
  api_version: string;
  timestamp: string;
  count: number;
}

async function startTidewatch(s: Scenario, scope: string, names: string[], api: HttpApiOptions = {}): Promise<{ tw: Tidewatch; url: string }> {
  const plugin = createHttpApiPlugin();
  const tw = await createTidewatch({
    plugins: [
      {
        plugin: dockerPlugin,
        options: { host: s.env.dockerHost, names, scope, includeStopped: true, stopTimeoutMs: 5000, gracePeriodMs: 1500 },
      },
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } },
      {
        plugin,
        options: {
          endpoints: ['check', 'containers', 'images', 'metrics', 'update'],
          token: TOKEN,
          host: '127.0.0.1',
          port: 0,
          rateLimit: 0,
          ...api,
        },
      },
    ],
  });
  return { tw, url: plugin.address!.url };
}

async function getJson<T>(url: string, headers: Record<string, string> = bearer()): Promise<{ status: number; body: T }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return { status: res.status, body: (text === '' ? undefined : JSON.parse(text)) as T };
}

const details = async (t: Test, url: string, query = '') => {
  const { status, body } = await getJson<Envelope & { containers: Details[] }>(`${url}/v1/containers/details${query}`);
  t.equal(status, 200, `details${query} answers 200`);
  return body;
};
const images = async (t: Test, url: string, query = '') => {
  const { status, body } = await getJson<Envelope & { images: ImageEntry[] }>(`${url}/v1/images${query}`);
  t.equal(status, 200, `images${query} answers 200`);
  return body;
};
const byName = (list: Details[]) => new Map(list.map((d) => [d.name, d]));

t.test('details, images and status of real containers; stale from the last check; [] when empty', async (t) => {
  const s = await scenario(t, 'fork-read');
  if (!s) return;
  const scope = `${s.prefix}-scope`;
  const labels = { 'com.centurylinklabs.watchtower.scope': scope };
  // web and worker run the same image, the worker created from its untagged name; db is monitor-only;
  // idle was created and never started, and is no-pull.
  const web = await runningOn(s, 'app', { run: { name: `${s.prefix}-web`, labels } });
  const appRepoRef = web.image.ref.replace(/:latest$/, '');
  await runContainer(s.engine, { name: `${s.prefix}-worker`, image: appRepoRef, cmd: QUICK_STOP_CMD, labels });
  const db = await runningOn(s, 'db', { run: { labels: { ...labels, 'tidewatch.monitor-only': 'true' } } });
  const idleImage = await pushImage({ registry: s.env.registry, repo: `${s.prefix}/idle`, marker: `${s.prefix}/idle v1`, cmd: QUICK_STOP_CMD });
  await pullImage(s.engine, idleImage.ref);
  await runContainer(s.engine, { name: `${s.prefix}-idle`, image: idleImage.ref, start: false, labels: { ...labels, 'tidewatch.no-pull': 'true' } });
  const [webName, workerName, dbName, idleName] = ['web', 'worker', 'db', 'idle'].map((n) => `${s.prefix}-${n}`) as [string, string, string, string];

  const { tw, url } = await startTidewatch(s, scope, [`${s.prefix}-.*`]);
  t.teardown(() => tw.close());

  // Before any check: every container listed, none stale, none checked.
  let list = await details(t, url);
  t.equal(list.api_version, 'v1');
  t.match(list.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.equal(list.count, 4);
  t.same(list.containers.map((c) => c.name).sort(), [dbName, idleName, webName, workerName].sort());
  let found = byName(list.containers);
  t.same(found.get(webName), {
    name: webName,
    host: s.env.dockerHost,
    image: web.image.ref,
    image_id: web.image.configDigest,
    digest: web.image.digest,
    running: true,
    watchtower: false,
    monitor_only: false,
    no_pull: false,
    enabled: true,
    stale: false,
    scope,
  }, 'web: every field, from the engine and its labels');
  t.match(found.get(workerName), { image_id: web.image.configDigest, running: true, stale: false });
  t.equal(found.get(workerName)?.image, web.image.ref, 'an untagged name reads as :latest, as Watchtower reads it');
  t.match(found.get(dbName), { monitor_only: true, no_pull: false, running: true, stale: false, digest: db.image.digest });
  t.match(found.get(idleName), { running: false, no_pull: true, monitor_only: false, stale: false });
  for (const c of list.containers) t.notOk('checked_at' in c, `${c.name}: no checked_at before a check`);

  // A newer app image: the check finds web and worker stale, db fresh.
  const before = Date.now();
  const next = await pushImage({ registry: s.env.registry, repo: web.repo, marker: `${web.repo} v2`, cmd: QUICK_STOP_CMD });
  let res = await fetch(`${url}/v1/check`, { method: 'POST', headers: bearer() });
  t.equal(res.status, 200);
  const checked = (await res.json()) as { containers: { name: string; update_available: boolean }[] };
  t.same(
    Object.fromEntries(checked.containers.map((c) => [c.name, c.update_available])),
    { [webName]: true, [workerName]: true, [dbName]: false, [idleName]: false },
    'what the check found',
  );
  list = await details(t, url);
  found = byName(list.containers);
  t.equal(found.get(webName)?.stale, true, 'web: stale after the check found a newer image');
  t.equal(found.get(workerName)?.stale, true, 'worker: stale too');
  t.equal(found.get(dbName)?.stale, false, 'db: fresh');
  t.equal(found.get(idleName)?.stale, false, 'idle: fresh');
  for (const c of list.containers) {
    const at = Date.parse(c.checked_at ?? '');
    t.ok(at >= before - 1000 && at <= Date.now(), `${c.name}: checked_at is the check's time`);
  }

  // A check of db alone leaves the others' answers as they were.
  res = await fetch(`${url}/v1/check?container=${dbName}`, { method: 'POST', headers: bearer() });
  t.equal(res.status, 200);
  found = byName((await details(t, url)).containers);
  t.equal(found.get(webName)?.stale, true, 'a filtered check does not forget web');

  // Filters are exact; no match is [].
  t.same((await details(t, url, `?name=${webName}`)).containers.map((c) => c.name), [webName]);
  t.same((await details(t, url, `?image=${encodeURIComponent(web.image.ref)}`)).containers.map((c) => c.name).sort(), [webName, workerName]);
  t.same((await details(t, url, `?image=${encodeURIComponent(appRepoRef)}`)).containers, [], 'the image filter is exact');
  let none = await details(t, url, '?name=nobody');
  t.same(none.containers, [], 'details: an empty result is [], never null');
  t.equal(none.count, 0);

  // Images: one entry per image id and name; web and worker share the app image's.
  let imgs = await images(t, url);
  t.equal(imgs.api_version, 'v1');
  t.same(imgs.images, [
    { name: web.image.ref, image_id: web.image.configDigest, digest: web.image.digest, containers: 2 },
    { name: db.image.ref, image_id: db.image.configDigest, digest: db.image.digest, containers: 1 },
    { name: idleImage.ref, image_id: idleImage.configDigest, digest: idleImage.digest, containers: 1 },
  ].sort((a, b) => a.name.localeCompare(b.name)), 'grouped, counted, sorted by name');
  t.equal(imgs.count, 3);
  t.same((await images(t, url, `?name=${encodeURIComponent(web.image.ref)}`)).images.map((i) => i.containers), [2], 'exact name');
  t.same((await images(t, url, `?id=${db.image.configDigest}`)).images.map((i) => i.name), [db.image.ref]);
  const noImage = await images(t, url, '?name=nobody');
  t.same(noImage.images, [], 'images: an empty result is [], never null');
  t.equal(noImage.count, 0);
  t.same((await images(t, url, `?id=sha256:${'0'.repeat(64)}`)).images, []);

  // Status: 204 before any update run (checks do not count).
  res = await fetch(`${url}/v1/status`, { headers: bearer() });
  t.equal(res.status, 204, 'no update run yet: 204');
  t.equal(await res.text(), '', '204 has no body');

  // Update the worker: the replacement has a new id, runs the new image, and was never checked.
  res = await fetch(`${url}/v1/update?container=${workerName}`, { method: 'POST', headers: bearer() });
  t.equal(res.status, 200);
  const update = (await res.json()) as { summary: Record<string, number> };
  t.same(update.summary, { scanned: 1, updated: 1, failed: 0, restarted: 0, skipped: 0 });
  const status = await getJson<{ summary: Record<string, number>; run_id: string; finished_at: string; api_version: string; timestamp: string }>(`${url}/v1/status`);
  t.equal(status.status, 200);
  t.same(status.body.summary, update.summary, 'the last update run\'s summary');
  const lastUpdate = tw.history.entries().filter((e) => e.kind === 'update').at(-1);
  t.equal(status.body.run_id, lastUpdate?.runId);
  t.equal(status.body.finished_at, lastUpdate?.finishedAt.toISOString());
  t.equal(status.body.api_version, 'v1');
  t.same(Object.keys(status.body).sort(), ['api_version', 'finished_at', 'run_id', 'summary', 'timestamp']);

  found = byName((await details(t, url)).containers);
  t.match(found.get(workerName), { image_id: next.configDigest, stale: false }, 'the replacement runs the new image and is not stale');
  t.notOk(found.get(workerName) && 'checked_at' in found.get(workerName)!, 'and was never checked');
  t.equal(found.get(webName)?.stale, true, 'web still is');
  imgs = await images(t, url);
  t.same(imgs.images.filter((i) => i.name.startsWith(web.image.ref.replace(/:latest$/, ''))).map((i) => [i.image_id, i.containers]).sort(), [
    [web.image.configDigest, 1],
    [next.configDigest, 1],
  ].sort(), 'one container on each app image now');

  // A check afterwards changes the staleness, not the status.
  await fetch(`${url}/v1/check`, { method: 'POST', headers: bearer() });
  t.equal((await getJson<{ run_id: string }>(`${url}/v1/status`)).body.run_id, lastUpdate?.runId, 'checks do not change /v1/status');

  // Auth: no token, a wrong token.
  for (const path of ['/v1/status', '/v1/containers/details', '/v1/images']) {
    for (const headers of [{}, bearer('wrong')]) {
      const denied = await getJson<Record<string, unknown>>(`${url}${path}`, headers);
      t.equal(denied.status, 401, `${path} needs the main token`);
      t.same(Object.keys(denied.body).sort(), ['api_version', 'code', 'error', 'timestamp']);
    }
  }

  // Nothing monitored: [] from both lists.
  const empty = await startTidewatch(s, scope, [`${s.prefix}-nothing-matches`]);
  t.teardown(() => empty.tw.close());
  none = await details(t, empty.url);
  t.same(none.containers, []);
  t.equal(none.count, 0);
  t.same((await images(t, empty.url)).images, []);
});
