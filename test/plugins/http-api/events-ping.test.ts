// --http-api-events-ping-interval: the stream's keep-alive comment comes as often as asked.
import t from 'tap';
import { resolveConfig } from '../../../server/config/index.js';
import { EVENTS_TOKEN, startApi } from './helpers/harness.js';
import { openStream } from './helpers/sse.js';

t.test('a shorter ping interval sends ": ping" comments that often', async (t) => {
  const h = await startApi({ eventsPingIntervalMs: 150 });
  t.teardown(() => h.close());
  const stream = await openStream(`${h.url}/v1/events`, { authorization: `Bearer ${EVENTS_TOKEN}` });
  t.teardown(() => stream.close());
  const started = Date.now();
  const text = await stream.until((s) => (s.match(/^: ping$/gm) ?? []).length >= 3, 3000);
  t.ok((text.match(/^: ping$/gm) ?? []).length >= 3, 'three pings');
  t.ok(Date.now() - started < 2000, 'well before the default 15s would have sent one');
});

t.test('the option as a user writes it: flag, variable, default', async (t) => {
  const pingOf = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
    (resolveConfig({ argv, env, cwd: '/' }).plugins.find((p) => p.plugin.name === 'http-api')?.options as { eventsPingIntervalMs: number })
      .eventsPingIntervalMs;
  t.equal(pingOf([]), 15_000);
  t.equal(pingOf(['--http-api-events-ping-interval', '5s']), 5_000);
  t.equal(pingOf([], { TIDEWATCH_HTTP_API_EVENTS_PING_INTERVAL: '2' }), 2_000, 'digits alone are seconds');
  t.throws(() => pingOf(['--http-api-events-ping-interval', '0s']), /--http-api-events-ping-interval .*greater than zero/);
});
