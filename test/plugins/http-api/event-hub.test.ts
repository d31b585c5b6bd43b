// The fan-out itself, with real sockets and shortened timings: pings, and a subscriber that stops
// reading is dropped after the allowed delay without delaying the others (docs/interface.md §6).
import { createServer, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import t from 'tap';
import { makeEvent } from '../../../core/events.js';
import { EventHub } from '../../../plugins/http-api/event-hub.js';
import { memoryLogger, sleep, waitFor } from './helpers/harness.js';
import { countFrames, openStream, parseFrames } from './helpers/sse.js';

async function hubServer(hub: EventHub) {
  const responses: ServerResponse[] = [];
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const unsubscribe = hub.subscribe(res, undefined);
    res.on('close', unsubscribe);
    responses.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    responses,
    close: () => {
      hub.close();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

t.test('a ping comment on the interval', async (t) => {
  const hub = new EventHub({ logger: memoryLogger(), pingIntervalMs: 100 });
  const srv = await hubServer(hub);
  t.teardown(() => srv.close());
  const stream = await openStream(srv.url);
  t.teardown(() => stream.close());
  const text = await stream.until((s) => (s.match(/: ping\n\n/g) ?? []).length >= 2, 2000);
  t.ok(text.startsWith('retry: 5000\n\n'));
  t.same(parseFrames(text).filter((f) => f.comment).map((f) => f.comment).slice(0, 2), ['ping', 'ping']);
});

t.test('a stalled subscriber is dropped after the delay; the others get every event at once', async (t) => {
  const logger = memoryLogger();
  const hub = new EventHub({ logger, slowAfterMs: 5000 });
  const srv = await hubServer(hub);
  t.teardown(() => srv.close());

  // The stalled client: a raw socket that sends its request and then never reads.
  const stalled = connect(srv.port, '127.0.0.1');
  stalled.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  let stalledClosed = false;
  stalled.on('close', () => {
    stalledClosed = true;
  });
  stalled.on('error', () => undefined);
  await waitFor(() => hub.size === 1);
  stalled.pause();

  const reader = await countFrames(srv.url);
  t.teardown(() => reader.close());
  await waitFor(() => hub.size === 2);

  const padding = 'x'.repeat(8 * 1024);
  const total = 3000; // ~25 MB: far more than socket buffers hold for the stalled client
  const started = Date.now();
  for (let i = 0; i < total; i++) hub.publish(makeEvent('scan_failed', { run_id: `r${i}`, error: padding }));
  await waitFor(() => reader.ids.length === total, 10_000);
  const elapsed = Date.now() - started;
  t.ok(elapsed < 5000, `the reading subscriber had everything in ${elapsed} ms, before the stalled one was dropped`);
  t.equal(hub.size, 2, 'the stalled one is still connected at that point');
  t.ok((srv.responses[0]?.writableLength ?? 0) > 0, 'with a backlog the hub does not wait for');
  const ids = reader.ids;
  t.equal(ids.length, total);
  t.ok(ids.every((id, i) => id === i + 1), 'in order, none missing');

  await waitFor(() => hub.size === 1, 9000);
  t.ok(Date.now() - started >= 5000, 'dropped only after the allowed delay');
  t.ok(srv.responses[0]?.destroyed, 'its connection was closed');
  // The client notices once it reads again.
  stalled.resume();
  await waitFor(() => stalledClosed, 6000);
  t.ok(logger.lines.some((l) => l.msg === 'event subscriber too slow: disconnected'));
  hub.publish(makeEvent('scan_failed', { run_id: 'after', error: 'x' }));
  await waitFor(() => reader.ids.length === total + 1);
  await sleep(10);
});

t.test('replay picks the frames after an id from the ring', async (t) => {
  const hub = new EventHub({ logger: memoryLogger() });
  t.teardown(() => hub.close());
  for (let i = 1; i <= 5; i++) hub.publish(makeEvent('scan_failed', { run_id: `r${i}`, error: 'x' }));
  hub.publish(makeEvent('registry_request', { registry: 'r', method: 'GET', code: '200' }));
  t.equal(hub.lastId, 5, 'internal events take no id');
  t.same(hub.replay(3).map((f) => /id: (\d+)/.exec(f)?.[1]), ['4', '5']);
  t.same(hub.replay(5), []);
  t.same(hub.replay(undefined), []);
  t.equal(hub.replay(99).length, 5, 'an id from an earlier process gets all that is buffered');
});
