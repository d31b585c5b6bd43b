// Health probes (docs/interface.md §4): GET and HEAD, no authentication, JSON status.
import t from 'tap';
import { createTidewatch } from '../../../core/index.js';
import { createHttpApiPlugin } from '../../../plugins/http-api/index.js';
import { startApi } from './helpers/harness.js';

t.test('livez, readyz, startupz answer ok without a token', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  for (const probe of ['/livez', '/readyz', '/startupz']) {
    const res = await fetch(`${h.url}${probe}`);
    t.equal(res.status, 200, probe);
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.match(await res.json(), { status: 'ok', api_version: 'v1', timestamp: String });
    const head = await fetch(`${h.url}${probe}`, { method: 'HEAD' });
    t.equal(head.status, 200, `HEAD ${probe}`);
    t.equal(await head.text(), '', 'HEAD has no body');
  }
});

t.test('readyz: 503 with the failing check when the engine does not answer', async (t) => {
  const h = await startApi({}, { ready: async () => Promise.reject(new Error('connect ENOENT /var/run/docker.sock')) });
  t.teardown(() => h.close());
  const res = await fetch(`${h.url}/readyz`);
  t.equal(res.status, 503);
  t.match(await res.json(), { status: 'unavailable', error: /stub-engine: connect ENOENT/, api_version: 'v1' });
});

t.test('startupz: 503 until the first discovery succeeded', async (t) => {
  const api = createHttpApiPlugin();
  const tw = await createTidewatch({ plugins: [{ plugin: api, options: { endpoints: ['health'], host: '127.0.0.1', port: 0 } }] });
  t.teardown(() => tw.close());
  const url = api.address!.url;
  let res = await fetch(`${url}/startupz`);
  t.equal(res.status, 503);
  t.match(await res.json(), { status: 'unavailable', error: /starting/ });
  t.equal((await fetch(`${url}/livez`)).status, 200, 'alive all the same');
  tw.health.markStarted();
  res = await fetch(`${url}/startupz`);
  t.equal(res.status, 200);
});

t.test('the address is known after apply and cleared after close', async (t) => {
  const api = createHttpApiPlugin();
  t.equal(api.address, undefined);
  const tw = await createTidewatch({ plugins: [{ plugin: api, options: { endpoints: ['health'], host: '127.0.0.1', port: 0 } }] });
  const address = api.address!;
  t.equal(address.host, '127.0.0.1');
  t.ok(address.port > 0);
  t.equal(address.url, `http://127.0.0.1:${address.port}`);
  await tw.close();
  t.equal(api.address, undefined);
  await t.rejects(fetch(`${address.url}/livez`), 'the socket is closed');
});
