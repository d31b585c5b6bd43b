// The image facts cache's rules around its event stream (docs/performance.md#image-facts-between-runs), on a
// stream of our own: nothing is reused before the stream opens or after it ends, an event drops everything,
// a lease whose discovery overlapped an event stores nothing, and a stream that failed to open is tried again.
// The integration test proves the same against the real engine's events.
import type http from 'node:http';
import { PassThrough } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import t from 'tap';
import type { EngineClient } from '../../../plugins/docker/engine/client.js';
import { IMAGE_FACTS_MAX_AGE_MS, ImageFactsCache } from '../../../plugins/docker/image/facts-cache.js';
import type { ImageFacts } from '../../../plugins/docker/target.js';

const FACTS: ImageFacts = { RepoDigests: ['registry.example/app@sha256:1'], labels: {} };

function engine() {
  const streams: PassThrough[] = [];
  const sinces: number[] = [];
  let refuse = false;
  const client = {
    imageEvents: async (since: number) => {
      sinces.push(since);
      if (refuse) throw new Error('no events here');
      const stream = new PassThrough();
      streams.push(stream);
      return stream as unknown as http.IncomingMessage;
    },
  } as unknown as EngineClient;
  return { client, streams, sinces, refuse: (value: boolean) => (refuse = value) };
}

async function filled(cache: ImageFactsCache): Promise<void> {
  const lease = cache.lease();
  lease?.set('sha256:a', FACTS);
  lease?.commit();
  await tick();
}

t.test('facts are reused only while the stream is open, and any event drops them', async (t) => {
  const e = engine();
  const cache = new ImageFactsCache(e.client, () => 1_700_000_000_000);
  t.equal(cache.lease(), undefined, 'no lease before the stream opens');
  cache.watch();
  cache.watch();
  await tick();
  t.equal(e.streams.length, 1, 'one stream, however often watch() is called');
  t.equal(e.sinces[0], 1_700_000_000 - 60, 'the stream starts a minute back');
  t.ok(cache.live);
  await filled(cache);
  t.equal(cache.lease()?.get('sha256:a'), FACTS, 'reused by the next discovery');
  t.equal(cache.reusable, 1, 'counted as reusable while fresh');

  (e.streams[0] as PassThrough).write('{"Type":"image","Action":"pull"}\n');
  await tick();
  t.equal(cache.size, 0, 'an event drops every fact');
  t.equal(cache.lease()?.get('sha256:a'), undefined);

  // A discovery that overlapped an event keeps nothing it inspected before the event arrived.
  const lease = cache.lease();
  lease?.set('sha256:a', FACTS);
  (e.streams[0] as PassThrough).write('{"Type":"image","Action":"tag"}\n');
  await tick();
  lease?.commit();
  t.equal(cache.size, 0, 'the overlapping lease stored nothing');

  await filled(cache);
  t.equal(cache.size, 1);
  (e.streams[0] as PassThrough).end();
  (e.streams[0] as PassThrough).resume();
  await tick();
  await tick();
  t.notOk(cache.live, 'an ended stream is not live');
  t.equal(cache.size, 0, 'and its facts are dropped');
  t.equal(cache.lease(), undefined);
  cache.watch();
  await tick();
  t.equal(e.streams.length, 2, 'the next discovery opens a new stream');
  t.ok(cache.live);
  cache.close();
});

t.test('facts older than the maximum age are neither reused nor counted as reusable', async (t) => {
  const e = engine();
  let now = 1_700_000_000_000;
  const cache = new ImageFactsCache(e.client, () => now);
  cache.watch();
  await tick();
  await filled(cache);
  t.equal(cache.reusable, 1);
  now += IMAGE_FACTS_MAX_AGE_MS + 1;
  t.equal(cache.reusable, 0, 'too old to count: a big fleet asks for its image list early again');
  t.equal(cache.lease()?.get('sha256:a'), undefined, 'too old to reuse');
  cache.close();
  t.equal(cache.reusable, 0, 'nothing is reusable without the stream');
});

t.test('closing the cache ends a stream that is still opening', async (t) => {
  let opening: AbortSignal | undefined;
  const client = {
    imageEvents: (_since: number, signal?: AbortSignal) =>
      new Promise<http.IncomingMessage>((_resolve, reject) => {
        opening = signal;
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }),
  } as unknown as EngineClient;
  const cache = new ImageFactsCache(client);
  cache.watch();
  await tick();
  t.equal(opening?.aborted, false, 'the stream is opening');
  cache.close();
  t.equal(opening?.aborted, true, 'close() gives up on it');
  await tick();
  t.notOk(cache.live);
});

t.test('a stream that fails to open is tried again by the next discovery', async (t) => {
  const e = engine();
  const cache = new ImageFactsCache(e.client);
  e.refuse(true);
  cache.watch();
  await tick();
  await tick();
  t.notOk(cache.live);
  t.equal(cache.lease(), undefined, 'nothing is reused without the stream');
  e.refuse(false);
  cache.watch();
  await tick();
  t.ok(cache.live, 'opened on the next try');
  cache.close();
  t.notOk(cache.live);
  cache.watch();
  await tick();
  t.equal(e.streams.length, 1, 'a closed cache opens no stream');
  t.ok((e.streams[0] as PassThrough).destroyed, 'close() ends the stream');
});
