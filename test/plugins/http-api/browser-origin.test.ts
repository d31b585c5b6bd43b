// The browser rule on every state-changing route (docs/http-api.md#browsers-and-other-origins), request by request:
// what Origin and Sec-Fetch-Site let through, whatever the credential, and that it is one hook for every route.
import t from 'tap';
import { crossOriginRefusal } from '../../../plugins/http-api/browser-origin.js';
import { bearer, startApi } from './helpers/harness.js';

t.test('the rule: own origin or a listed one; null, others and cross-site refused; `*` lists nothing', async (t) => {
  const host = '127.0.0.1:8080';
  t.equal(crossOriginRefusal(undefined, undefined, host, []), undefined, 'no browser headers: a script, curl');
  t.equal(crossOriginRefusal('http://127.0.0.1:8080', undefined, host, []), undefined, 'own origin');
  t.equal(crossOriginRefusal('https://ui.example', undefined, host, ['https://ui.example']), undefined, 'listed');
  t.match(crossOriginRefusal('null', undefined, host, ['null', '*']), /origin null/, 'null refused, even listed');
  t.match(crossOriginRefusal('https://evil.example', undefined, host, ['*']), /evil/, '`*` lists no origin');
  t.match(crossOriginRefusal('http://127.0.0.1:9090', undefined, host, []), /9090/, 'another port is another origin');
  t.match(crossOriginRefusal('not a url', undefined, host, []), /not a url/);
  t.match(crossOriginRefusal(undefined, 'cross-site', host, []), /cross-site/);
  t.equal(crossOriginRefusal(undefined, 'same-origin', host, []), undefined);
  t.equal(crossOriginRefusal(undefined, 'none', host, []), undefined, 'typed into the address bar');
});

t.test('on the server: every POST, PUT, PATCH, DELETE, whatever the credential; reads and webhooks aside', async (t) => {
  const h = await startApi({ corsOrigins: ['*'] });
  t.teardown(() => h.close());
  const send = (method: string, path: string, headers: Record<string, string>) => fetch(`${h.url}${path}`, { method, headers });
  const evil = { origin: 'https://evil.example' };

  let res = await send('POST', '/v1/check', { ...bearer(), ...evil });
  t.equal(res.status, 403, 'the Bearer header does not change it');
  t.match(await res.json(), { error: /evil\.example/, api_version: 'v1' });
  res = await send('POST', '/v1/update', { cookie: `access_token=${encodeURIComponent('main-token-for-tests')}`, origin: 'null' });
  t.equal(res.status, 403, 'Origin: null with the cookie');
  res = await send('POST', '/v1/check', { ...bearer(), 'sec-fetch-site': 'cross-site' });
  t.equal(res.status, 403, 'no Origin, Sec-Fetch-Site: cross-site');
  for (const method of ['PUT', 'PATCH', 'DELETE']) {
    res = await send(method, '/v1/some-route-added-later', evil);
    t.equal(res.status, 403, `${method} on any path, routed or not`);
  }
  res = await send('POST', '/v1/hooks/receiver', evil);
  t.not(res.status, 403, 'webhooks carry their own signature or token');
  res = await send('GET', '/v1/containers', { ...bearer(), ...evil });
  t.equal(res.status, 200, 'a read is CORS\'s business, not this rule\'s');
  res = await send('POST', '/v1/check', { ...bearer(), origin: h.url, 'sec-fetch-site': 'same-origin' });
  t.equal(res.status, 200, 'the API\'s own origin');
  res = await send('POST', '/v1/check', bearer());
  t.equal(res.status, 200, 'a client that is not a browser');
});
