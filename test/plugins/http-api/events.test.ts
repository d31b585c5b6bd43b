// GET /v1/events over real HTTP (docs/http-api-contract.md §4.3, §6; docs/interface.md §6): the events token, the frame format,
// ids, replay, the Origin check, the subscriber limit; a real `eventsource` client across a reconnect.
import t from 'tap';
import { EventSource } from 'eventsource';
import type { Staleness } from '../../../core/index.js';
import { bearer, EVENTS_TOKEN, startApi, target, TOKEN, waitFor } from './helpers/harness.js';
import { openStream, parseFrames } from './helpers/sse.js';

const STALE: Staleness = { source: 'registry', stale: true };
const eventsAuth = { authorization: `Bearer ${EVENTS_TOKEN}` };

t.test('events token: Bearer, raw header or access_token query; nothing else', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  const statusOf = async (query: string, headers: Record<string, string>) => {
    const stream = await openStream(`${h.url}/v1/events${query}`, headers);
    stream.close();
    return stream.response.status;
  };
  t.equal(await statusOf('', eventsAuth), 200, 'Bearer');
  t.equal(await statusOf('', { authorization: EVENTS_TOKEN }), 200, 'raw header (Swagger UI)');
  t.equal(await statusOf(`?access_token=${EVENTS_TOKEN}`, {}), 200, 'query parameter (EventSource)');
  t.equal(await statusOf('', {}), 401, 'missing');
  t.equal(await statusOf('', bearer(TOKEN)), 401, 'the main token is not the events token');
  t.equal(await statusOf('?access_token=nope', {}), 401, 'wrong query token');
  t.equal(await statusOf('', { cookie: `access_token=${EVENTS_TOKEN}` }), 401, 'no cookie for the events token');
  const res = await fetch(`${h.url}/v1/events`);
  t.match(await res.json(), { error: String, api_version: 'v1', timestamp: String });
  const failures = h.logs.filter((l) => l.msg === 'HTTP API authentication failed' && l.obj.realm === 'events');
  t.ok(failures.length >= 4 && failures.every((l) => l.obj.ip === '127.0.0.1'), 'failures logged with the client IP');
  t.notMatch(JSON.stringify(h.logs), /nope/, 'never the token');
});

t.test('frames: retry first, then id/event/data with monotonic ids; only public events', async (t) => {
  const h = await startApi({}, { targets: [target('web')], staleness: new Map([['web', STALE]]) });
  t.teardown(() => h.close());
  const stream = await openStream(`${h.url}/v1/events`, eventsAuth);
  t.teardown(() => stream.close());
  t.equal(stream.response.status, 200);
  t.equal(stream.response.headers.get('content-type'), 'text/event-stream');
  t.equal(stream.response.headers.get('cache-control'), 'no-cache');
  await stream.until((text) => text.startsWith('retry: 5000\n\n'));

  h.tw.emit('registry_request', { registry: '127.0.0.1:5101', method: 'HEAD', code: '200' });
  const res = await fetch(`${h.url}/v1/update`, { method: 'POST', headers: bearer() });
  t.equal(res.status, 200);
  h.tw.emit('image_cleanup', { run_id: 'r-cleanup', images: [{ image_id: 'sha256:old', image_name: 'demo/web:latest' }] });
  const text = await stream.until((s) => s.includes('event: image_cleanup'));
  const frames = parseFrames(text);
  t.same(frames[0], { retry: '5000' }, 'the first frame is retry: 5000');
  const events = frames.slice(1);
  t.same(
    events.map((f) => f.event),
    ['scan_started', 'update_started', 'update_completed', 'scan_completed', 'image_cleanup'],
    'in order; registry_request stays internal',
  );
  const ids = events.map((f) => Number(f.id));
  t.ok(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id === (ids[i - 1] as number) + 1)), `monotonic ids ${ids}`);
  for (const frame of events) {
    t.notMatch(frame.data, /\n/, 'one-line data');
    const data = JSON.parse(frame.data as string);
    t.same(Object.keys(data).sort(), ['data', 'timestamp', 'type']);
    t.equal(data.type, frame.event, 'type equals the event name');
    t.ok(!Number.isNaN(Date.parse(data.timestamp)));
  }
  const completed = JSON.parse(events[3]?.data as string).data;
  t.same(Object.keys(completed).sort(), ['failed', 'restarted', 'run_id', 'scanned', 'skipped', 'updated']);
  const started = JSON.parse(events[0]?.data as string).data;
  // The person or token that started the run (docs/people.md#a-name-on-every-decision): here the main token.
  t.same(started, { run_id: completed.run_id, kind: 'update', targeted: false, trigger: 'api', actor: { kind: 'token', name: 'main' } });
  t.match(JSON.parse(events[1]?.data as string).data, { run_id: completed.run_id, container: 'web', image: String, image_id: String });
  t.match(JSON.parse(events[2]?.data as string).data, { container: 'web', old_image_id: String, new_image_id: 'sha256:new' });
  t.same(JSON.parse(events[4]?.data as string).data, { run_id: 'r-cleanup', images: [{ image_id: 'sha256:old', image_name: 'demo/web:latest' }] });

  // A check run: scan_completed carries updated 0 and failed.
  await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() });
  const after = await stream.until((s) => (s.match(/event: scan_completed/g) ?? []).length === 2);
  const check = parseFrames(after).filter((f) => f.event === 'scan_completed')[1];
  t.same(Object.keys(JSON.parse(check?.data as string).data).sort(), ['failed', 'run_id', 'scanned', 'updated']);
  t.match(JSON.parse(check?.data as string).data, { scanned: 1, updated: 0, failed: 0 });
});

t.test('Last-Event-ID (header or last_event_id query) replays exactly the missed events', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  for (let i = 0; i < 1100; i++) h.tw.emit('scan_failed', { run_id: `run-${i}`, error: 'x' });
  const runOf = (text: string) =>
    parseFrames(text)
      .filter((f) => f.event)
      .map((f) => JSON.parse(f.data as string).data.run_id as string);

  let stream = await openStream(`${h.url}/v1/events`, { ...eventsAuth, 'last-event-id': '1095' });
  let text = await stream.until((s) => s.includes('run-1099'));
  stream.close();
  t.same(runOf(text), ['run-1095', 'run-1096', 'run-1097', 'run-1098', 'run-1099'], 'ids 1096..1100');
  t.same(parseFrames(text).filter((f) => f.id).map((f) => f.id), ['1096', '1097', '1098', '1099', '1100']);

  stream = await openStream(`${h.url}/v1/events?last_event_id=1098`, eventsAuth);
  text = await stream.until((s) => s.includes('run-1099'));
  stream.close();
  t.same(runOf(text), ['run-1098', 'run-1099'], 'query form');

  stream = await openStream(`${h.url}/v1/events`, { ...eventsAuth, 'last-event-id': '0' });
  text = await stream.until((s) => s.includes('run-1099'));
  stream.close();
  const replayed = runOf(text);
  t.equal(replayed.length, 1000, 'the buffer keeps the last 1000');
  t.equal(replayed[0], 'run-100');

  stream = await openStream(`${h.url}/v1/events`, { ...eventsAuth, 'last-event-id': '1100' });
  h.tw.emit('scan_failed', { run_id: 'live', error: 'x' });
  text = await stream.until((s) => s.includes('live'));
  stream.close();
  t.same(runOf(text), ['live'], 'up to date: nothing replayed, then live');

  stream = await openStream(`${h.url}/v1/events`, { ...eventsAuth, 'last-event-id': 'garbage' });
  h.tw.emit('scan_failed', { run_id: 'live-2', error: 'x' });
  text = await stream.until((s) => s.includes('live-2'));
  stream.close();
  t.same(runOf(text), ['live-2'], 'an unusable id replays nothing');
});

t.test('Origin: same-origin, null or allowed; otherwise 403', async (t) => {
  const h = await startApi({ corsOrigins: ['https://dash.example'] });
  t.teardown(() => h.close());
  const host = new URL(h.url).host;
  const statusWith = async (origin: string) => {
    const stream = await openStream(`${h.url}/v1/events`, { ...eventsAuth, origin });
    stream.close();
    return stream.response;
  };
  t.equal((await statusWith(`http://${host}`)).status, 200, 'same origin');
  t.equal((await statusWith('null')).status, 200, 'null');
  t.equal((await statusWith('https://dash.example')).status, 200, 'allowed by --http-api-cors-origins');
  const denied = await fetch(`${h.url}/v1/events`, { headers: { ...eventsAuth, origin: 'https://evil.example' } });
  t.equal(denied.status, 403);
  t.match(await denied.json(), { error: /evil\.example/, api_version: 'v1', timestamp: String });

  const open = await startApi({ corsOrigins: ['*'] });
  t.teardown(() => open.close());
  const stream = await openStream(`${open.url}/v1/events`, { ...eventsAuth, origin: 'https://anything.example' });
  stream.close();
  t.equal(stream.response.status, 200, '* allows any origin');
});

t.test('subscriber limit: 503 over it', async (t) => {
  const h = await startApi({ eventsMaxSubscribers: 2 });
  t.teardown(() => h.close());
  const a = await openStream(`${h.url}/v1/events`, eventsAuth);
  const b = await openStream(`${h.url}/v1/events`, eventsAuth);
  const c = await fetch(`${h.url}/v1/events`, { headers: eventsAuth });
  t.equal(c.status, 503);
  t.match(await c.json(), { error: /too many event subscribers/, api_version: 'v1' });
  a.close();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const d = await openStream(`${h.url}/v1/events`, eventsAuth);
  t.equal(d.response.status, 200, 'a slot frees when a subscriber leaves');
  b.close();
  d.close();
});

t.test('a real EventSource: a run in order, then exactly the missed events after a reconnect', async (t) => {
  const h = await startApi({}, { targets: [target('web'), target('db')], staleness: new Map([['web', STALE], ['db', STALE]]) });
  t.teardown(() => h.close());
  const sockets = new Set<import('node:net').Socket>();
  h.api.server!.server.on('connection', (socket) => sockets.add(socket));

  const received: { id: string; type: string; run: string }[] = [];
  const opens: number[] = [];
  const es = new EventSource(`${h.url}/v1/events`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${EVENTS_TOKEN}` } }),
  });
  t.teardown(() => es.close());
  es.addEventListener('open', () => opens.push(Date.now()));
  for (const type of ['scan_started', 'update_started', 'update_completed', 'update_failed', 'scan_completed', 'scan_failed']) {
    es.addEventListener(type, (event) => {
      const message = event as MessageEvent;
      received.push({ id: message.lastEventId, type, run: JSON.parse(message.data as string).data.run_id });
    });
  }
  await waitFor(() => opens.length === 1);

  const runUpdate = async () => {
    const res = await fetch(`${h.url}/v1/update?async=true`, { method: 'POST', headers: bearer() });
    return ((await res.json()) as { run_id: string }).run_id;
  };
  const first = await runUpdate();
  await waitFor(() => received.some((e) => e.type === 'scan_completed' && e.run === first));
  t.same(
    received.map((e) => e.type),
    ['scan_started', 'update_started', 'update_completed', 'update_started', 'update_completed', 'scan_completed'],
    'every event of the run, in order',
  );
  t.ok(received.every((e) => e.run === first));
  const lastSeen = received.at(-1)?.id as string;

  // Drop the connection under the client; while it waits to reconnect (retry: 5000), a run happens.
  for (const socket of sockets) socket.destroy();
  await waitFor(() => es.readyState === EventSource.CONNECTING);
  const missedRun = await runUpdate();
  await waitFor(() => h.tw.history.entries().length === 2);
  const before = received.length;
  await waitFor(() => opens.length === 2, 9000);
  await waitFor(() => received.length >= before + 6);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const replayed = received.slice(before);
  t.same(
    replayed.map((e) => e.type),
    ['scan_started', 'update_started', 'update_completed', 'update_started', 'update_completed', 'scan_completed'],
    'exactly the missed events, in order',
  );
  t.ok(replayed.every((e) => e.run === missedRun), 'all of the missed run');
  t.same(
    replayed.map((e) => Number(e.id)),
    replayed.map((_, i) => Number(lastSeen) + 1 + i),
    'ids continue right after the last one seen: nothing lost, nothing twice',
  );
});
