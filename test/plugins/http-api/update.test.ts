// POST /v1/update over real HTTP (docs/http-api-contract.md §4.1, docs/interface.md §4–5): the 2.1 summary, async 202 with a
// run_id the events carry, the concurrency rules, timeouts that cancel between containers only.
import t from 'tap';
import type { Staleness } from '../../../core/index.js';
import { bearer, gate, recordEvents, sleep, startApi, target, waitFor } from './helpers/harness.js';

const STALE: Staleness = { source: 'registry', stale: true, latestDigest: `sha256:${'9'.repeat(64)}` };
const GO_DURATION = /^(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|ms|s)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const post = (url: string, init: RequestInit = {}) => fetch(url, { method: 'POST', headers: bearer(), ...init });

t.test('synchronous update: the 2.1 summary and timing', async (t) => {
  const h = await startApi({}, { targets: [target('web'), target('db')], staleness: new Map([['web', STALE]]) });
  t.teardown(() => h.close());
  const res = await post(`${h.url}/v1/update`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^application\/json/);
  const body = (await res.json()) as Record<string, never>;
  t.same(Object.keys(body).sort(), ['api_version', 'summary', 'timestamp', 'timing']);
  t.same(body.summary, { scanned: 2, updated: 1, failed: 0, restarted: 0, skipped: 0 });
  const timing = body.timing as { duration_ms: number; duration: string };
  t.ok(Number.isInteger(timing.duration_ms) && timing.duration_ms >= 0, 'duration_ms is an integer');
  t.match(timing.duration, GO_DURATION, "duration is Go's Duration.String()");
  t.equal(body.api_version, 'v1');
});

t.test('async: 202 with run_id; every event of the run carries it', async (t) => {
  const h = await startApi({}, { targets: [target('web'), target('db')], staleness: new Map([['web', STALE]]) });
  t.teardown(() => h.close());
  const events = recordEvents(h.tw);
  for (const value of ['true', '1']) {
    const res = await post(`${h.url}/v1/update?async=${value}`);
    t.equal(res.status, 202, `async=${value}`);
    t.match(res.headers.get('content-type'), /^application\/json/);
    const body = (await res.json()) as { status: string; run_id: string; targeted: boolean };
    t.same(Object.keys(body).sort(), ['api_version', 'run_id', 'status', 'targeted', 'timestamp']);
    t.equal(body.status, 'accepted');
    t.match(body.run_id, UUID);
    t.equal(body.targeted, false);
    await waitFor(() => events.some((e) => e.type === 'scan_completed' && e.data.run_id === body.run_id));
    const ofRun = events.filter((e) => 'run_id' in e.data && e.data.run_id === body.run_id).map((e) => e.type);
    t.same(ofRun, ['scan_started', 'update_started', 'update_completed', 'run_report', 'scan_completed'], 'the run, in order, under its run_id (run_report is internal)');
  }
  for (const value of ['false', '0']) {
    const res = await post(`${h.url}/v1/update?async=${value}`);
    t.equal(res.status, 200, `async=${value} is synchronous`);
  }
  const targeted = await post(`${h.url}/v1/update?async=true&container=web`);
  t.equal(((await targeted.json()) as { targeted: boolean }).targeted, true);
  for (const bad of ['maybe', 'TRUE', 'yes', '']) {
    const res = await post(`${h.url}/v1/update?async=${bad}`);
    t.equal(res.status, 400, `async=${bad}`);
    t.match(await res.json(), { error: /^invalid 'async' parameter/, api_version: 'v1', timestamp: String });
  }
  t.equal((await post(`${h.url}/v1/update?async=true&async=false`)).status, 400, 'async given twice');
});

t.test('concurrency: a full update while busy is 429 at once; a targeted one waits', async (t) => {
  const held = gate();
  let applies = 0;
  const h = await startApi(
    {},
    {
      targets: [target('web'), target('db')],
      staleness: new Map([
        ['web', STALE],
        ['db', STALE],
      ]),
      apply: async (plan) => {
        applies++;
        if (plan.target.name === 'web') await held.promise;
        return { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
      },
    },
  );
  t.teardown(() => h.close());
  const first = post(`${h.url}/v1/update`);
  await waitFor(() => applies === 1);

  for (const query of ['', '?async=true']) {
    const started = Date.now();
    const res = await post(`${h.url}/v1/update${query}`);
    t.equal(res.status, 429, `full update${query} while busy`);
    t.equal(res.headers.get('retry-after'), '30');
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.strictSame(Object.keys(await res.clone().json() as object).sort(), ['api_version', 'code', 'error', 'timestamp']);
    t.match(await res.json(), { error: 'another update is already running', api_version: 'v1', timestamp: String });
    t.ok(Date.now() - started < 1000, 'never waits');
  }

  let targetedDone = false;
  const targeted = post(`${h.url}/v1/update?container=db`).then((res) => {
    targetedDone = true;
    return res;
  });
  let asyncAccepted = false;
  const targetedAsync = post(`${h.url}/v1/update?container=db&async=true`).then((res) => {
    asyncAccepted = true;
    return res;
  });
  await sleep(300);
  t.notOk(targetedDone, 'the targeted update waits for the lock');
  t.notOk(asyncAccepted, 'a targeted async update waits for the lock before its 202');
  held.open();
  t.equal((await first).status, 200);
  const res = await targeted;
  t.equal(res.status, 200, 'then runs');
  t.same(((await res.json()) as { summary: unknown }).summary, { scanned: 1, updated: 1, failed: 0, restarted: 0, skipped: 0 });
  t.equal((await targetedAsync).status, 202);
});

t.test('a client that hangs up while its targeted update waits cancels it', async (t) => {
  const held = gate();
  let applies = 0;
  const h = await startApi(
    {},
    {
      targets: [target('web'), target('db')],
      staleness: new Map([['web', STALE]]),
      apply: async (plan) => {
        applies++;
        await held.promise;
        return { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
      },
    },
  );
  t.teardown(() => h.close());
  const events = recordEvents(h.tw);
  const first = post(`${h.url}/v1/update`);
  await waitFor(() => applies === 1);
  const controller = new AbortController();
  const waiting = post(`${h.url}/v1/update?container=web`, { signal: controller.signal });
  await sleep(200);
  controller.abort();
  await t.rejects(waiting);
  await sleep(100);
  held.open();
  t.equal((await first).status, 200);
  await sleep(300);
  t.equal(applies, 1, 'the cancelled request never ran');
  t.equal(events.filter((e) => e.type === 'scan_started').length, 1);
  t.notOk(h.tw.lock.busy, 'and holds no lock');
  t.equal(h.tw.history.entries().length, 1);
});

t.test('timeout: 503 at the deadline, the run cancelled between containers', async (t) => {
  let applied: string[] = [];
  const h = await startApi(
    { updateTimeoutMs: 250 },
    {
      targets: [target('a'), target('b'), target('c')],
      staleness: new Map([
        ['a', STALE],
        ['b', STALE],
        ['c', STALE],
      ]),
      apply: async (plan) => {
        await sleep(1000);
        applied.push(plan.target.name);
        return { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
      },
    },
  );
  t.teardown(() => h.close());
  const events = recordEvents(h.tw);

  let started = Date.now();
  let res = await post(`${h.url}/v1/update?timeout=100ms`);
  t.ok(Date.now() - started < 900, 'answered at the deadline, not when the container finished');
  t.equal(res.status, 503);
  t.strictSame(Object.keys(await res.clone().json() as object).sort(), ['api_version', 'code', 'error', 'timestamp']);
  t.match(await res.json(), { error: 'update timed out after 100ms', api_version: 'v1', timestamp: String });
  await waitFor(() => events.some((e) => e.type === 'scan_failed'));
  t.same(applied, ['a'], 'the container being replaced finished; the others were never started');
  t.match(events.find((e) => e.type === 'scan_failed')?.data, { error: 'update timed out after 100ms' });
  t.ok(events.some((e) => e.type === 'update_completed'), 'the replacement in flight completed');

  applied = [];
  started = Date.now();
  res = await post(`${h.url}/v1/update?timeout=1h`);
  t.strictSame(Object.keys(await res.clone().json() as object).sort(), ['api_version', 'code', 'error', 'timestamp']);
  t.match(await res.json(), { error: 'update timed out after 250ms', api_version: 'v1', timestamp: String }, 'capped');
  await waitFor(() => !h.tw.lock.busy);

  applied = [];
  res = await post(`${h.url}/v1/update?async=true&timeout=100ms`);
  t.equal(res.status, 202, 'async: the timeout bounds the background run');
  const { run_id: runId } = (await res.json()) as { run_id: string };
  await waitFor(() => events.some((e) => e.type === 'scan_failed' && e.data.run_id === runId));
  t.same(applied, ['a']);

  for (const bad of ['abc', '0', '-5s', '10']) {
    res = await post(`${h.url}/v1/update?timeout=${bad}`);
    t.equal(res.status, 400, `timeout=${bad}`);
    t.match(await res.json(), { error: /^invalid 'timeout' parameter/ });
  }
});

t.test('the timeout also covers waiting for the lock', async (t) => {
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
  const first = post(`${h.url}/v1/update`);
  await waitFor(() => applies === 1);
  const res = await post(`${h.url}/v1/update?container=web&timeout=200ms`);
  t.equal(res.status, 503);
  t.strictSame(Object.keys(await res.clone().json() as object).sort(), ['api_version', 'code', 'error', 'timestamp']);
  t.match(await res.json(), { error: 'update timed out after 200ms', api_version: 'v1', timestamp: String });
  held.open();
  t.equal((await first).status, 200);
  await sleep(100);
  t.equal(applies, 1, 'the timed-out request never ran');
});

t.test('failures: 500 for a failed run, per-container failures in the summary', async (t) => {
  const broken = await startApi({}, { beforeDiscover: async () => Promise.reject(new Error('engine unreachable')) });
  t.teardown(() => broken.close());
  let res = await post(`${broken.url}/v1/update`);
  t.equal(res.status, 500);
  t.match(await res.json(), { error: /engine unreachable/, api_version: 'v1', timestamp: String });

  const h = await startApi(
    {},
    {
      targets: [target('web'), target('db')],
      staleness: new Map([
        ['web', STALE],
        ['db', STALE],
      ]),
      apply: async (plan) =>
        plan.target.name === 'web'
          ? { target: plan.target, outcome: 'failed', error: 'new container exited', rolledBack: true }
          : { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' },
    },
  );
  t.teardown(() => h.close());
  const events = recordEvents(h.tw);
  res = await post(`${h.url}/v1/update`);
  t.equal(res.status, 200);
  t.same(((await res.json()) as { summary: unknown }).summary, { scanned: 2, updated: 1, failed: 1, restarted: 0, skipped: 0 });
  t.match(events.find((e) => e.type === 'update_failed')?.data, { container: 'web', error: 'new container exited', rolled_back: true });

  t.equal((await fetch(`${h.url}/v1/update`, { method: 'POST' })).status, 401);
  t.equal((await fetch(`${h.url}/v1/update`, { method: 'GET', headers: bearer() })).status, 405);
});
