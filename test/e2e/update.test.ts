// Issue 3 through the real binary: POST /v1/update against the private engine and registry, its
// concurrency rules, async runs whose events carry the run id, rollback as the API reports it, and a
// service killed with SIGKILL in the middle of a replacement.
import { EventSource } from 'eventsource';
import t from 'tap';
import { waitFor, type TestEnv } from '../helpers/env.js';
import { runContainer } from '../helpers/images.js';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-update-token-0123456789';
const EVENTS_TOKEN = 'e2e-update-events-token-0123';

interface StreamedEvent {
  type: string;
  data: Record<string, unknown>;
}

function subscribe(service: RunningService): { events: StreamedEvent[]; close(): void } {
  const events: StreamedEvent[] = [];
  const source = new EventSource(`${service.url}/v1/events?access_token=${EVENTS_TOKEN}`);
  for (const type of ['scan_started', 'scan_completed', 'scan_failed', 'update_started', 'update_completed', 'update_failed', 'image_cleanup']) {
    source.addEventListener(type, (message) => events.push(JSON.parse(message.data) as StreamedEvent));
  }
  return { events, close: () => source.close() };
}

async function serviceFor(t: { teardown(fn: () => unknown): void }, env: TestEnv, prefix: string, extra: string[] = []): Promise<RunningService> {
  const service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'update,events,history',
    '--http-api-token', TOKEN,
    '--http-api-events-token', EVENTS_TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    ...extra,
    // Only this file's containers: other test files share the engine.
    `${prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

t.test('concurrency: a full update while busy is 429, a targeted one waits; async runs carry their id', async (t) => {
  const s = await scenario(t, 'e2e-update');
  if (!s) return;
  const { env, engine, prefix } = s;
  // The pre-update hook holds the full run (and so the lock) for three seconds.
  const slow = await runningOn(s, 'slow', { run: { labels: { 'tidewatch.lifecycle.pre-update': 'sleep 3' } } });
  await runContainer(engine, { name: `${prefix}-other`, image: slow.image.ref, env: ['KEEP=me'] });
  const v2 = await pushNext(s, slow);

  const service = await serviceFor(t, env, prefix, ['--enable-lifecycle-hooks']);
  const stream = subscribe(service);
  t.teardown(() => stream.close());
  await new Promise((r) => setTimeout(r, 300));

  const full = call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN }).then((res) => ({ res, at: Date.now() }));
  await new Promise((r) => setTimeout(r, 1000));
  const busy = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(busy.status, 429, 'a second full update is refused at once');
  t.equal(busy.headers.get('retry-after'), '30');
  t.match(busy.body, { error: /already running/, api_version: 'v1', timestamp: String });

  const targeted = call(`${service.url}/v1/update?container=${prefix}-other`, { method: 'POST', token: TOKEN }).then((res) => ({
    res,
    at: Date.now(),
  }));
  const [first, waited] = await Promise.all([full, targeted]);
  t.equal(first.res.status, 200);
  t.match(first.res.body, { summary: { scanned: 2, updated: 2, failed: 0, skipped: 0, restarted: 0 }, api_version: 'v1' });
  t.match(first.res.body, { timing: { duration_ms: Number, duration: String } });
  t.equal(waited.res.status, 200, 'the targeted update waited and then ran');
  t.ok(waited.at >= first.at, 'it answered only after the full run released the lock');
  t.match(waited.res.body, { summary: { scanned: 1, updated: 0 } }, 'nothing left to do for it');

  const v2Id = (await engine.getImage(v2.ref).inspect()).Id;
  for (const name of [`${prefix}-slow`, `${prefix}-other`]) {
    const info = await engine.getContainer(name).inspect();
    t.equal(info.Image, v2Id, `${name} runs the new image`);
    t.ok(info.State.Running, `${name} is running`);
  }
  t.ok((await engine.getContainer(`${prefix}-other`).inspect()).Config.Env.includes('KEEP=me'), 'configuration kept');

  await pushNext(s, slow, { marker: 'v3' });
  const accepted = await call(`${service.url}/v1/update?async=true&container=${prefix}-other`, { method: 'POST', token: TOKEN });
  t.equal(accepted.status, 202);
  t.match(accepted.headers.get('content-type'), /application\/json/);
  const body = accepted.body as { status: string; run_id: string; targeted: boolean };
  t.match(body, { status: 'accepted', run_id: /^[0-9a-f-]{36}$/, targeted: true, api_version: 'v1' });
  const runEvents = await waitFor(() => {
    const mine = stream.events.filter((e) => e.data['run_id'] === body.run_id);
    return mine.some((e) => e.type === 'scan_completed') ? mine : undefined;
  }, 60_000);
  t.same(
    runEvents.map((e) => e.type),
    ['scan_started', 'update_started', 'update_completed', 'scan_completed'],
    'the async run streamed its events in order, each with the run id',
  );
  t.match(runEvents.at(-1)?.data, { updated: 1, failed: 0 });
});

// Rollback and SIGKILL keep their guarantees when independent chains are replaced side by side.
for (const concurrency of [1, 4]) {
const flags = concurrency === 1 ? [] : ['--update-concurrency', String(concurrency)];
const suffix = concurrency === 1 ? '' : ` (--update-concurrency ${concurrency})`;
t.test(`a new image that exits at once is rolled back and reported as failed${suffix}`, async (t) => {
  const s = await scenario(t, concurrency === 1 ? 'e2e-rollback' : `e2e-rollback-c${concurrency}`);
  if (!s) return;
  const { env, engine, prefix } = s;
  const running = await runningOn(s, 'app', { run: { restartPolicy: 'unless-stopped' } });
  const { name, container: old } = running;
  await pushNext(s, running, { marker: 'bad', cmd: ['/bin/false'] });

  const service = await serviceFor(t, env, prefix, flags);
  const stream = subscribe(service);
  t.teardown(() => stream.close());
  await new Promise((r) => setTimeout(r, 300));

  const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200);
  t.match(res.body, { summary: { failed: 1, updated: 0 } });
  const failed = await waitFor(() => stream.events.find((e) => e.type === 'update_failed'), 10_000);
  t.match(failed.data, { container: name, rolled_back: true, error: String });

  const now = await engine.getContainer(name).inspect();
  t.equal(now.Id, old.id, 'the old container is back under its name');
  t.ok(now.State.Running, 'and running');
  const all = await engine.listContainers({ all: true });
  t.equal(all.filter((c) => c.Names.some((n) => n.includes(prefix))).length, 1, 'no leftover container');
});

t.test(`SIGKILL of the service in the middle of a replacement loses no container${suffix}`, async (t) => {
  const s = await scenario(t, concurrency === 1 ? 'e2e-killed' : `e2e-killed-c${concurrency}`);
  if (!s) return;
  const { env, engine, prefix } = s;
  const running = await runningOn(s, 'app', { run: { env: ['KEEP=1'] } });
  const { name, container: old } = running;
  // The new container never becomes healthy within the grace period: the service sits in the proof.
  const hour = 3600 * 1_000_000_000;
  await pushNext(s, running, { healthcheck: { Test: ['CMD', '/bin/true'], Interval: hour, StartPeriod: hour } });

  const first = await serviceFor(t, env, prefix, ['--update-grace-period', '2m', ...flags]);
  void call(`${first.url}/v1/update`, { method: 'POST', token: TOKEN }).catch(() => undefined);
  await waitFor(async () => {
    const holder = await engine.getContainer(name).inspect().catch(() => undefined);
    return holder !== undefined && holder.Id !== old.id;
  }, 30_000);
  await first.stop('SIGKILL');

  const second = await serviceFor(t, env, prefix, flags);
  await second.stop('SIGTERM');
  const now = await engine.getContainer(name).inspect();
  t.equal(now.Id, old.id, 'the old container is back under its name');
  t.ok(now.State.Running, 'running as before');
  t.ok(now.Config.Env.includes('KEEP=1'));
  const left = (await engine.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.includes(prefix)));
  t.equal(left.length, 1, 'nothing left renamed, staged or duplicated');
});
}
