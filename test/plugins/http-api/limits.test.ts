// The per-IP rate limit (docs/http-api-contract.md §8.1): a true sliding window, before authentication, on every route;
// 429 with no body and Retry-After; the client IP from the proxy header only for trusted proxies.
import t from 'tap';
import { SlidingWindowLimiter } from '../../../plugins/http-api/guards/rate-limit.js';
import { ProxyTrust } from '../../../plugins/http-api/guards/client-ip.js';
import { bearer, startApi } from './helpers/harness.js';

t.test('a true sliding window, not fixed buckets', async (t) => {
  let now = 1_000_000;
  const limiter = new SlidingWindowLimiter(3, () => now);
  t.teardown(() => limiter.close());
  t.match(limiter.take('a'), { allowed: true, remaining: 2 });
  now += 30_000;
  t.match(limiter.take('a'), { allowed: true });
  t.match(limiter.take('a'), { allowed: true, remaining: 0 });
  now += 29_000; // 59 s after the first request
  t.same(limiter.take('a'), { allowed: false, retryAfterSeconds: 1 }, 'the oldest leaves the window in 1 s');
  t.match(limiter.take('b'), { allowed: true }, 'per client');
  now += 1_000; // 60 s: the first request has left the window
  t.match(limiter.take('a'), { allowed: true });
  now += 1_000; // 61 s: a fixed one-minute bucket would allow 3 more here
  t.same(limiter.take('a'), { allowed: false, retryAfterSeconds: 29 }, 'the two from 30 s still count');
  now += 29_000;
  t.match(limiter.take('a'), { allowed: true });
  now += 120_000;
  limiter.sweep();
  t.match(limiter.take('a'), { allowed: true, remaining: 2 }, 'idle clients are forgotten');
});

t.test('429 with no body and Retry-After, before authentication, on every route', async (t) => {
  const h = await startApi({ rateLimit: 3 });
  t.teardown(() => h.close());
  t.equal((await fetch(`${h.url}/v1/check`, { method: 'POST' })).status, 401, 'unauthenticated requests count');
  t.equal((await fetch(`${h.url}/livez`)).status, 200);
  t.equal((await fetch(`${h.url}/nope`)).status, 404, 'unknown routes count');
  for (const [method, path, headers] of [
    ['POST', '/v1/check', bearer()],
    ['POST', '/v1/check', {}],
    ['GET', '/livez', {}],
    ['GET', '/swagger/index.html', {}],
    ['GET', '/v1/events', {}],
    ['GET', '/nope', {}],
  ] as const) {
    const res = await fetch(`${h.url}${path}`, { method, headers });
    t.equal(res.status, 429, `${method} ${path}: limited before anything else`);
    t.equal(await res.text(), '', 'empty body');
    const retry = res.headers.get('retry-after');
    t.match(retry, /^\d+$/, 'Retry-After in whole seconds');
    t.ok(Number(retry) >= 1 && Number(retry) <= 60);
  }
  t.notOk(
    h.logs.some((l) => l.msg === 'HTTP API authentication failed' && h.logs.indexOf(l) > 2),
    'limited requests never reach authentication',
  );

  const off = await startApi({ rateLimit: 0 });
  t.teardown(() => off.close());
  for (let i = 0; i < 100; i++) t.equal((await fetch(`${off.url}/livez`)).status, 200, `0 turns it off (${i})`);
});

t.test('client IP: the proxy header only from trusted proxies (addresses and CIDRs)', async (t) => {
  const through = (h: { url: string }, ip: string, header = 'x-forwarded-for') =>
    fetch(`${h.url}/livez`, { headers: { [header]: ip } }).then((r) => r.status);

  const trusted = await startApi({ rateLimit: 2, trustedProxies: ['127.0.0.0/8'] });
  t.teardown(() => trusted.close());
  t.equal(await through(trusted, '203.0.113.1'), 200);
  t.equal(await through(trusted, '203.0.113.1'), 200);
  t.equal(await through(trusted, '203.0.113.1'), 429, 'one client behind the proxy is limited');
  t.equal(await through(trusted, '203.0.113.2'), 200, 'another client behind the same proxy is not');
  t.equal(await through(trusted, '198.51.100.7, 203.0.113.3'), 200, 'the nearest untrusted hop is the client');
  t.equal(await through(trusted, '198.51.100.7, 203.0.113.3'), 200);
  t.equal(await through(trusted, '10.9.9.9, 203.0.113.3'), 429, 'a client cannot escape by prepending addresses');

  const untrusted = await startApi({ rateLimit: 2, trustedProxies: ['10.0.0.1'] });
  t.teardown(() => untrusted.close());
  t.equal(await through(untrusted, '203.0.113.1'), 200);
  t.equal(await through(untrusted, '203.0.113.2'), 200);
  t.equal(await through(untrusted, '203.0.113.3'), 429, 'from an untrusted peer the header is ignored');

  const custom = await startApi({ rateLimit: 1, trustedProxies: ['127.0.0.1'], proxyHeader: 'X-Real-IP' });
  t.teardown(() => custom.close());
  t.equal(await through(custom, '203.0.113.1', 'x-real-ip'), 200);
  t.equal(await through(custom, '203.0.113.2', 'x-real-ip'), 200, '--http-api-proxy-header names the header');
  t.equal(await through(custom, '203.0.113.7', 'x-forwarded-for'), 200, 'without it the peer is the client');
  t.equal(await through(custom, '203.0.113.8', 'x-forwarded-for'), 429, 'X-Forwarded-For is not read then');

  const logged = await startApi({ trustedProxies: ['127.0.0.1'] });
  t.teardown(() => logged.close());
  await fetch(`${logged.url}/v1/check`, { method: 'POST', headers: { 'x-forwarded-for': '192.0.2.44' } });
  t.equal(logged.logs.find((l) => l.msg === 'HTTP API authentication failed')?.obj.ip, '192.0.2.44', 'the logged IP is the client');
});

t.test('ProxyTrust: IPv4, IPv6, mapped addresses and CIDRs', async (t) => {
  const trust = new ProxyTrust(['10.0.0.0/8', '192.168.1.5', 'fd00::/8', '::1'], 'X-Forwarded-For');
  t.ok(trust.isTrusted('10.200.3.4'));
  t.ok(trust.isTrusted('::ffff:10.1.1.1'), 'IPv4-mapped IPv6');
  t.ok(trust.isTrusted('192.168.1.5'));
  t.notOk(trust.isTrusted('192.168.1.6'));
  t.ok(trust.isTrusted('fd12::1'));
  t.ok(trust.isTrusted('::1'));
  t.notOk(trust.isTrusted('fe80::1'));
  t.notOk(trust.isTrusted('not-an-ip'));
  t.notOk(new ProxyTrust([], 'X-Forwarded-For').isTrusted('127.0.0.1'), 'nobody by default');
  t.throws(() => new ProxyTrust(['nonsense'], 'X-Forwarded-For'));
});
