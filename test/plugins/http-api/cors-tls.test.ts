// CORS with --http-api-cors-origins and TLS from a certificate and key file (docs/http-api-contract.md §1, §5.1).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { bearer, startApi } from './helpers/harness.js';

t.test('no origins configured: no CORS headers', async (t) => {
  const h = await startApi();
  t.teardown(() => h.close());
  const res = await fetch(`${h.url}/v1/check`, { method: 'POST', headers: { ...bearer(), origin: 'https://ui.example' } });
  // Another origin may not change anything, whatever the credential (docs/http-api.md#browsers-and-other-origins).
  t.equal(res.status, 403);
  t.equal(res.headers.get('access-control-allow-origin'), null);
  const own = await fetch(`${h.url}/v1/check`, { method: 'POST', headers: { ...bearer(), origin: h.url } });
  t.equal(own.status, 200, 'the API\'s own origin is served');
  t.equal(own.headers.get('access-control-allow-origin'), null);
  const preflight = await fetch(`${h.url}/v1/check`, {
    method: 'OPTIONS',
    headers: { origin: 'https://ui.example', 'access-control-request-method': 'POST' },
  });
  t.equal(preflight.status, 405, 'no preflight answered: OPTIONS is not a method of the route');
  t.match(await preflight.json(), { error: String, api_version: 'v1' });
});

t.test('listed origins: credentialed CORS and preflight; others get nothing', async (t) => {
  const h = await startApi({ corsOrigins: ['https://ui.example'] });
  t.teardown(() => h.close());
  let res = await fetch(`${h.url}/v1/check`, { method: 'POST', headers: { ...bearer(), origin: 'https://ui.example' } });
  t.equal(res.headers.get('access-control-allow-origin'), 'https://ui.example');
  t.equal(res.headers.get('access-control-allow-credentials'), 'true');
  res = await fetch(`${h.url}/v1/check`, { method: 'OPTIONS', headers: { origin: 'https://ui.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' } });
  t.equal(res.status, 204, 'preflight answered before authentication');
  t.match(res.headers.get('access-control-allow-methods'), /POST/);
  t.match(res.headers.get('access-control-allow-headers'), /Authorization/);
  t.equal(res.headers.get('access-control-max-age'), '3600');
  res = await fetch(`${h.url}/v1/check`, { method: 'POST', headers: { ...bearer(), origin: 'https://evil.example' } });
  t.equal(res.headers.get('access-control-allow-origin'), null, 'an unlisted origin gets no CORS header');
  res = await fetch(`${h.url}/v1/check`, { method: 'POST', headers: { origin: 'https://ui.example' } });
  t.equal(res.status, 401, 'CORS does not replace authentication');
  t.equal(res.headers.get('access-control-allow-origin'), 'https://ui.example', 'the 401 is readable by the page');
});

t.test('* allows any origin, without credentials', async (t) => {
  const h = await startApi({ corsOrigins: ['*'] });
  t.teardown(() => h.close());
  const res = await fetch(`${h.url}/livez`, { headers: { origin: 'https://any.example' } });
  t.equal(res.headers.get('access-control-allow-origin'), '*');
  t.equal(res.headers.get('access-control-allow-credentials'), null);
});

t.test('TLS from a certificate and key file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tidewatch-tls-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
    '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', cert,
  ], { stdio: 'ignore' });
  const h = await startApi({ tlsCert: cert, tlsKey: key, trustedProxies: [] });
  t.teardown(() => h.close());
  t.match(h.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const { readFileSync } = await import('node:fs');
  const ca = readFileSync(cert);
  const get = (path: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${h.url}${path}`, { ca, headers }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  const live = await get('/livez');
  t.equal(live.status, 200);
  t.match(JSON.parse(live.body), { status: 'ok' });
  const doc = JSON.parse((await get('/swagger/doc.json')).body) as { schemes: string[] };
  t.same(doc.schemes, ['https'], 'the description advertises https when the socket is TLS');
  await t.rejects(fetch(`${h.url.replace('https', 'http')}/livez`), 'plain HTTP is not served');

  await t.rejects(startApi({ tlsCert: cert }), /--http-api-tls-key is missing/, 'a certificate without a key is refused');
});
