// Protocol details against a scripted registry: redirects, rate-limit headers, the concurrency bound,
// the WWW-Authenticate parser and the token cache.
import t from 'tap';
import { parseChallenge } from '../../../plugins/registry/challenge.js';
import { registryEndpoint } from '../../../plugins/registry/endpoint.js';
import { isRateLimited, parseRetryAfter, quotaExhaustedFor } from '../../../plugins/registry/rate-limit.js';
import { TokenCache, expandScope, jwtGrants } from '../../../plugins/registry/token-cache.js';
import { FakeRegistry, digestOf } from './fake-registry.js';
import { harness, target } from './harness.js';

t.test('WWW-Authenticate parsing', async (t) => {
  t.same(parseChallenge('Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"'), {
    scheme: 'bearer',
    realm: 'https://auth.docker.io/token',
    service: 'registry.docker.io',
    scope: 'repository:library/nginx:pull',
  });
  t.same(parseChallenge('Basic realm="Registry Realm"'), { scheme: 'basic', realm: 'Registry Realm' });
  t.same(parseChallenge('Basic realm="a", Bearer realm="https://x/t"'), { scheme: 'bearer', realm: 'https://x/t' });
  t.same(parseChallenge('bearer realm=https://x/t, service=reg'), { scheme: 'bearer', realm: 'https://x/t', service: 'reg' });
  t.same(parseChallenge('Bearer realm="a\\"b"'), { scheme: 'bearer', realm: 'a"b' });
  t.equal(parseChallenge('Negotiate abc'), undefined);
  t.equal(parseChallenge(undefined), undefined);
});

t.test('endpoints: Docker Hub API host, plain http for loopback and tlsSkip only', async (t) => {
  t.same(registryEndpoint('docker.io', false), { registry: 'docker.io', baseUrl: 'https://registry-1.docker.io' });
  t.equal(registryEndpoint('127.0.0.1:5101', false).baseUrl, 'http://127.0.0.1:5101');
  t.equal(registryEndpoint('127.5.6.7', false).baseUrl, 'http://127.5.6.7');
  t.equal(registryEndpoint('localhost:5000', false).baseUrl, 'http://localhost:5000');
  t.equal(registryEndpoint('[::1]:5000', false).baseUrl, 'http://[::1]:5000');
  t.equal(registryEndpoint('ghcr.io', false).baseUrl, 'https://ghcr.io');
  t.equal(registryEndpoint('128.0.0.1:5000', false).baseUrl, 'https://128.0.0.1:5000');
  t.equal(registryEndpoint('reg.example:5000', true).baseUrl, 'http://reg.example:5000');
});

t.test('token cache: scopes, JWT grants, expiry, exclusion', async (t) => {
  let now = 1_000_000;
  const cache = new TokenCache(() => now);
  t.same(expandScope('repository:a/b:pull,push repository:c:pull'), ['repository:a/b:pull', 'repository:a/b:push', 'repository:c:pull']);
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const jwt = `${part({})}.${part({ access: [{ type: 'repository', name: 'x', actions: ['pull'] }, { type: 'repository', name: 'y', actions: ['pull'] }] })}.s`;
  t.same([...jwtGrants(jwt)], ['repository:x:pull', 'repository:y:pull']);
  t.same([...jwtGrants('opaque')], []);
  let issued = 0;
  const issue = async () => ({ token: `${jwt}${issued++}`, expiresIn: 60 });
  const first = await cache.get('k', 'repository:x:pull', issue);
  t.equal(await cache.get('k', 'repository:y:pull', issue), first, 'covered by the JWT grants');
  t.not(await cache.get('k', 'repository:z:pull', issue), first, 'not covered');
  t.not(await cache.get('other', 'repository:x:pull', issue), first, 'other credentials, other token');
  t.not(await cache.get('k', 'repository:x:pull', issue, first), first, 'a refused token is never handed out again');
  now += 60_000;
  const before = issued;
  await cache.get('k', 'repository:x:pull', issue);
  t.equal(issued, before + 1, 'expired tokens are renewed');
});

t.test('rate-limit header parsing', async (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.equal(parseRetryAfter('7', now), 7000);
  t.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
  t.equal(parseRetryAfter('soon', now), undefined);
  t.equal(quotaExhaustedFor({ 'ratelimit-remaining': '0', 'ratelimit-reset': '12' }, now), 12_000);
  t.equal(quotaExhaustedFor({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 5) }, now), 5000);
  t.equal(quotaExhaustedFor({ 'ratelimit-remaining': '0;w=21600' }, now), undefined, "Docker Hub's window alone pauses nothing");
  t.equal(quotaExhaustedFor({ 'ratelimit-remaining': '3', 'ratelimit-reset': '12' }, now), undefined);
  const reply = (status: number, body = '') => ({ status, headers: {}, body: Buffer.from(body), url: new URL('http://x') });
  t.ok(isRateLimited(reply(429)));
  t.ok(isRateLimited(reply(403, '{"errors":[{"code":"TOOMANYREQUESTS"}]}')));
  t.notOk(isRateLimited(reply(403, '{"errors":[{"code":"DENIED"}]}')));
});

t.test('RateLimit-Remaining 0 with a reset pauses that registry before the next request', async (t) => {
  const reg = await new FakeRegistry().start();
  t.teardown(() => reg.close());
  const digest = reg.push('demo/a', 'latest');
  reg.push('demo/b', 'latest');
  let sentQuotaHeaders = false;
  const times: number[] = [];
  reg.options.override = (req, res, url) => {
    if (!url.pathname.includes('/manifests/')) return false;
    times.push(Date.now());
    if (sentQuotaHeaders) return false;
    sentQuotaHeaders = true;
    res.writeHead(200, { 'docker-content-digest': digest, 'ratelimit-remaining': '0', 'ratelimit-reset': '1' }).end();
    return true;
  };
  let list = [target('a', `${reg.host}/demo/a:latest`, [`${reg.host}/demo/a@${digest}`])];
  const h = await harness(() => list);
  t.teardown(() => h.tw.close());
  await h.check();
  list = [target('b', `${reg.host}/demo/b:latest`, [`${reg.host}/demo/b@${digest}`])];
  const report = await h.check();
  t.equal(report.results[0]?.staleness.error, undefined);
  t.ok((times[1] as number) - (times[0] as number) >= 900, `waited for the reset (${(times[1] as number) - (times[0] as number)} ms)`);
});

t.test('redirects are followed; credentials never go to another origin', async (t) => {
  const storage = await new FakeRegistry().start();
  t.teardown(() => storage.close());
  const manifest = { mediaType: 'application/vnd.oci.image.manifest.v1+json', body: '{"schemaVersion":2}' };
  storage.push('demo/app', 'latest', manifest);
  const reg = await new FakeRegistry({ auth: 'basic', user: 'u', password: 'p', headWithoutDigest: true }).start();
  t.teardown(() => reg.close());
  reg.options.override = (req, res, url) => {
    if (!url.pathname.includes('/manifests/')) return false;
    if (req.headers.authorization !== `Basic ${Buffer.from('u:p').toString('base64')}`) return false;
    res.writeHead(307, { location: `http://${storage.host}${url.pathname}` }).end();
    return true;
  };
  const h = await harness([target('app', `${reg.host}/demo/app:latest`, [`${reg.host}/demo/app@${digestOf(manifest.body)}`])], {
    repoUser: 'u',
    repoPass: 'p',
  });
  t.teardown(() => h.tw.close());
  const s = h.byName(await h.check(), 'app').staleness;
  t.same(s, { source: 'registry', stale: false, currentDigest: digestOf(manifest.body), latestDigest: digestOf(manifest.body) });
  t.ok(storage.requests.length > 0, 'the redirect was followed');
  t.ok(storage.requests.every((r) => r.authorization === undefined), 'no Authorization header crossed origins');
});

t.test('requests in flight never exceed `concurrency`', async (t) => {
  const reg = await new FakeRegistry({ delayMs: 50 }).start();
  t.teardown(() => reg.close());
  const targets = Array.from({ length: 30 }, (_, i) => {
    const d = reg.push(`demo/i${i}`, 'latest');
    return target(`c${i}`, `${reg.host}/demo/i${i}:latest`, [`${reg.host}/demo/i${i}@${d}`]);
  });
  const h = await harness(targets, { concurrency: 3 });
  t.teardown(() => h.tw.close());
  const report = await h.check();
  t.notOk(report.results.some((r) => r.staleness.error));
  t.equal(reg.manifestRequests(), 30);
  t.ok(reg.maxInFlight <= 3, `at most 3 in flight (${reg.maxInFlight})`);
  t.ok(reg.maxInFlight >= 2, 'and the bound is actually used');
});

t.test('a request that outlasts the request timeout fails with the timeout, and the next one is asked', async (t) => {
  const reg = await new FakeRegistry({ delayMs: 2000 }).start();
  t.teardown(() => reg.close());
  const d = reg.push('demo/slow', 'latest');
  const h = await harness([target('slow', `${reg.host}/demo/slow:latest`, [`${reg.host}/demo/slow@${d}`])], { requestTimeoutMs: 200 });
  t.teardown(() => h.tw.close());
  const started = Date.now();
  const report = await h.check();
  t.ok(Date.now() - started < 1500, 'did not wait for the slow registry');
  t.match(report.results[0]?.staleness.error, /timed out after 200 ms/);
  const again = await h.check();
  t.match(again.results[0]?.staleness.error, /timed out after 200 ms/, 'each run asks again and times out on its own');
  t.equal(reg.manifestRequests(), 2);
});

t.test('an aborted run stops waiting', async (t) => {
  const reg = await new FakeRegistry({ delayMs: 2000 }).start();
  t.teardown(() => reg.close());
  const d = reg.push('demo/slow', 'latest');
  const h = await harness([target('slow', `${reg.host}/demo/slow:latest`, [`${reg.host}/demo/slow@${d}`])]);
  t.teardown(() => h.tw.close());
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('client went away')), 100);
  const started = Date.now();
  const report = await h.tw.check({ signal: controller.signal });
  t.ok(Date.now() - started < 1500, 'did not wait for the slow registry');
  t.match(report.results[0]?.staleness.error, /client went away/);
});
