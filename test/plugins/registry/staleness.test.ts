// The registry source against a scripted registry on 127.0.0.1: digests, GET fallback, the auth
// schemes, token reuse, and one request per distinct image however many containers run it.
import t from 'tap';
import { FakeRegistry, digestOf, manifestFor } from './fake-registry.js';
import { harness, target } from './harness.js';

t.test('anonymous registry: up to date, then stale after a new push', async (t) => {
  const reg = await new FakeRegistry().start();
  t.teardown(() => reg.close());
  const a = reg.push('demo/app', 'latest');
  const image = `${reg.host}/demo/app:latest`;
  const h = await harness([target('app', image, [`${reg.host}/demo/app@${a}`])]);
  t.teardown(() => h.tw.close());

  let report = await h.check();
  let s = h.byName(report, 'app').staleness;
  t.same(s, { source: 'registry', stale: false, currentDigest: a, latestDigest: a });

  const b = reg.push('demo/app', 'latest');
  report = await h.check();
  s = h.byName(report, 'app').staleness;
  t.same(s, { source: 'registry', stale: true, currentDigest: a, latestDigest: b });

  const heads = reg.requests.filter((r) => r.method === 'HEAD');
  t.equal(heads.length, 2, 'one HEAD per run');
  t.equal(reg.count((r) => r.path === '/v2/'), 1, 'the /v2/ challenge is remembered across runs');
  for (const accept of [
    'application/vnd.docker.distribution.manifest.list.v2+json',
    'application/vnd.oci.image.index.v1+json',
    'application/vnd.docker.distribution.manifest.v2+json',
    'application/vnd.oci.image.manifest.v1+json',
  ]) {
    t.match(heads[0]?.accept, accept, `Accept names ${accept}`);
  }
  const metric = h.events.filter((e) => e.type === 'registry_request').map((e) => e.data);
  t.same(metric[0], { registry: reg.host, method: 'GET', code: '200' });
  t.same(metric[1], { registry: reg.host, method: 'HEAD', code: '200' });
});

t.test('a matching digest under another repository name still counts as up to date', async (t) => {
  const reg = await new FakeRegistry().start();
  t.teardown(() => reg.close());
  const a = reg.push('demo/app', 'v1');
  const h = await harness([target('app', `${reg.host}/demo/app:v1`, [`mirror.example/other@${a}`])]);
  t.teardown(() => h.tw.close());
  const s = h.byName(await h.check(), 'app').staleness;
  t.equal(s.stale, false);
  t.equal(s.currentDigest, a);
});

t.test('HEAD without Docker-Content-Digest falls back to GET and hashes the body', async (t) => {
  const reg = await new FakeRegistry({ headWithoutDigest: true }).start();
  t.teardown(() => reg.close());
  const manifest = manifestFor('x');
  const digest = reg.push('demo/app', 'latest', manifest);
  t.equal(digest, digestOf(manifest.body));
  const h = await harness([target('app', `${reg.host}/demo/app:latest`, [`${reg.host}/demo/app@sha256:${'1'.repeat(64)}`])]);
  t.teardown(() => h.tw.close());
  const s = h.byName(await h.check(), 'app').staleness;
  t.same(s, { source: 'registry', stale: true, currentDigest: `sha256:${'1'.repeat(64)}`, latestDigest: digest });
  t.same(
    // The tag's requests; the candidate's version is then read by its digest (docs/versions.md).
    reg.requests.filter((r) => r.path.includes('/manifests/') && !r.path.includes('/manifests/sha256:')).map((r) => r.method),
    ['HEAD', 'GET'],
  );
});

t.test('HEAD refused (405) falls back to GET too', async (t) => {
  const reg = await new FakeRegistry({ headNotAllowed: true, headWithoutDigest: true }).start();
  t.teardown(() => reg.close());
  const digest = reg.push('demo/app', 'latest');
  const h = await harness([target('app', `${reg.host}/demo/app:latest`, [`${reg.host}/demo/app@${digest}`])]);
  t.teardown(() => h.tw.close());
  t.equal(h.byName(await h.check(), 'app').staleness.stale, false);
});

t.test('local builds (a check error), pinned digests and bad references', async (t) => {
  const reg = await new FakeRegistry().start();
  t.teardown(() => reg.close());
  const h = await harness([
    target('local', `${reg.host}/demo/app:latest`, []),
    target('pinned', `${reg.host}/demo/app@sha256:${'2'.repeat(64)}`, [`${reg.host}/demo/app@sha256:${'2'.repeat(64)}`]),
    target('bad', 'sha256:NOT A REF', ['x@sha256:' + '3'.repeat(64)]),
  ]);
  t.teardown(() => h.tw.close());
  const report = await h.check();
  // No registry digest recorded: never "up to date" (docs/engines.md), a check error naming the image.
  const local = h.byName(report, 'local').staleness;
  t.equal(local.stale, false);
  t.match(local.error, /records no registry digest for the running image sha256:0{64} \(built or loaded locally.*current digest cannot be known/);
  t.same(h.byName(report, 'pinned').staleness, { source: 'registry', stale: false, currentDigest: `sha256:${'2'.repeat(64)}` });
  const bad = h.byName(report, 'bad').staleness;
  t.equal(bad.stale, false);
  t.match(bad.error, /invalid image reference/);
  t.equal(reg.requests.length, 0, 'none of them contacts the registry');
});

t.test('failures are per-target errors, never "up to date"', async (t) => {
  const reg = await new FakeRegistry().start();
  t.teardown(() => reg.close());
  const h = await harness(
    [
      target('missing', `${reg.host}/demo/nothing:latest`, [`${reg.host}/demo/nothing@sha256:${'4'.repeat(64)}`]),
      target('down', '127.0.0.1:1/demo/app:latest', [`127.0.0.1:1/demo/app@sha256:${'5'.repeat(64)}`]),
    ],
    { requestTimeoutMs: 5000 },
  );
  t.teardown(() => h.tw.close());
  const report = await h.check();
  const missing = h.byName(report, 'missing').staleness;
  t.equal(missing.stale, false);
  t.match(missing.error, /not found/);
  const down = h.byName(report, 'down').staleness;
  t.equal(down.source, 'registry');
  t.match(down.error, /failed/);
  t.ok(h.events.some((e) => e.type === 'registry_request' && e.data.code === 'error'), 'network errors are counted');
});

t.test('one manifest request per distinct image reference, however many targets', async (t) => {
  const reg = await new FakeRegistry().start();
  t.teardown(() => reg.close());
  const digests = ['one', 'two', 'three'].map((name) => reg.push(`demo/${name}`, 'latest'));
  const targets = Array.from({ length: 60 }, (_, i) => {
    const n = i % 3;
    const name = ['one', 'two', 'three'][n] as string;
    return target(`c${i}`, `${reg.host}/demo/${name}:latest`, [`${reg.host}/demo/${name}@${digests[n]}`]);
  });
  // The same image written differently is the same reference.
  targets.push(target('implicit-tag', `${reg.host}/demo/one`, [`${reg.host}/demo/one@${digests[0]}`]));
  const h = await harness(targets);
  t.teardown(() => h.tw.close());
  const report = await h.check();
  t.equal(report.results.length, 61);
  t.ok(report.results.every((r) => r.staleness.stale === false && !r.staleness.error));
  t.equal(reg.manifestRequests(), 3);
  t.equal(reg.count((r) => r.path === '/v2/'), 1, 'concurrent first requests share one challenge');
});

t.test('Basic auth with REPO_USER/REPO_PASS', async (t) => {
  const reg = await new FakeRegistry({ auth: 'basic', user: 'u', password: 'p' }).start();
  t.teardown(() => reg.close());
  const digest = reg.push('demo/app', 'latest');
  const image = `${reg.host}/demo/app:latest`;
  const good = await harness([target('app', image, [`${reg.host}/demo/app@${digest}`])], { repoUser: 'u', repoPass: 'p' });
  t.teardown(() => good.tw.close());
  t.same(good.byName(await good.check(), 'app').staleness.stale, false);
  t.equal(reg.requests.at(-1)?.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);

  const bad = await harness([target('app', image, [`${reg.host}/demo/app@${digest}`])], { repoUser: 'u', repoPass: 'wrong' });
  t.teardown(() => bad.tw.close());
  const refused = bad.byName(await bad.check(), 'app').staleness;
  t.equal(refused.stale, false);
  t.match(refused.error, /refused the credentials from REPO_USER\/REPO_PASS/);

  const none = await harness([target('app', image, [`${reg.host}/demo/app@${digest}`])]);
  t.teardown(() => none.tw.close());
  t.match(none.byName(await none.check(), 'app').staleness.error, /requires authentication and no credentials/);
});

t.test('Bearer: challenge, token realm with service and scope, one token per scope', async (t) => {
  const reg = await new FakeRegistry({ auth: 'bearer' }).start();
  t.teardown(() => reg.close());
  const a = reg.push('team/a', 'latest');
  const b = reg.push('team/b', 'latest');
  const targets = [
    target('a1', `${reg.host}/team/a:latest`, [`${reg.host}/team/a@${a}`]),
    target('a2', `${reg.host}/team/a:latest`, [`${reg.host}/team/a@${a}`]),
    target('b1', `${reg.host}/team/b:latest`, [`${reg.host}/team/b@sha256:${'6'.repeat(64)}`]),
  ];
  const h = await harness(targets);
  t.teardown(() => h.tw.close());
  let report = await h.check();
  t.equal(h.byName(report, 'a1').staleness.stale, false);
  t.equal(h.byName(report, 'b1').staleness.stale, true);
  t.equal(h.byName(report, 'b1').staleness.latestDigest, b);
  t.same(reg.tokensIssued.sort(), ['repository:team/a:pull', 'repository:team/b:pull']);
  const tokenReq = reg.requests.find((r) => r.path.startsWith('/token'));
  t.match(tokenReq?.path, /service=fake-registry/);
  t.equal(tokenReq?.authorization, undefined, 'anonymous token request without credentials');

  report = await h.check();
  t.equal(reg.tokensIssued.length, 2, 'tokens are reused by the next run until they expire');
  // Two HEADs per check, and b's candidate read once by digest for its version (docs/versions.md), then cached.
  t.equal(reg.manifestRequests(), 5);
});

t.test('Bearer: a token whose grants cover another repository is reused for it', async (t) => {
  const reg = await new FakeRegistry({ auth: 'bearer', grantExtra: ['team/a', 'team/b'] }).start();
  t.teardown(() => reg.close());
  const a = reg.push('team/a', 'latest');
  const b = reg.push('team/b', 'latest');
  // Sequential: the first token exists before the second repository is asked for.
  let list = [target('a', `${reg.host}/team/a:latest`, [`${reg.host}/team/a@${a}`])];
  const h = await harness(() => list);
  t.teardown(() => h.tw.close());
  await h.check();
  list = [target('b', `${reg.host}/team/b:latest`, [`${reg.host}/team/b@${b}`])];
  const report = await h.check();
  t.equal(h.byName(report, 'b').staleness.stale, false);
  t.equal(reg.tokensIssued.length, 1, 'one token served both repositories');
});

t.test('Bearer with credentials from the token server, and an expired token is renewed', async (t) => {
  const reg = await new FakeRegistry({ auth: 'bearer', user: 'u', password: 'p', tokenLifetime: 1 }).start();
  t.teardown(() => reg.close());
  const a = reg.push('team/a', 'latest');
  const h = await harness([target('a', `${reg.host}/team/a:latest`, [`${reg.host}/team/a@${a}`])], {
    repoUser: 'u',
    repoPass: 'p',
  });
  t.teardown(() => h.tw.close());
  t.equal(h.byName(await h.check(), 'a').staleness.stale, false);
  const tokenReq = reg.requests.find((r) => r.path.startsWith('/token'));
  t.equal(tokenReq?.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
  await new Promise((r) => setTimeout(r, 1100));
  t.equal(h.byName(await h.check(), 'a').staleness.stale, false);
  t.equal(reg.tokensIssued.length, 2, 'expired token fetched again');
});

t.test('Bearer: a 401 with a fresh challenge is answered once', async (t) => {
  // The registry answers /v2/ anonymously but protects manifests: the challenge arrives on the 401.
  const reg = await new FakeRegistry({ auth: 'bearer' }).start();
  t.teardown(() => reg.close());
  const a = reg.push('team/a', 'latest');
  const h = await harness([target('a', `${reg.host}/team/a:latest`, [`${reg.host}/team/a@${a}`])]);
  t.teardown(() => h.tw.close());
  reg.options = { auth: 'none' };
  await h.check(); // remembers "anonymous"
  reg.options = { auth: 'bearer' };
  const s = h.byName(await h.check(), 'a').staleness;
  t.equal(s.stale, false);
  t.equal(s.error, undefined);
  t.same(
    reg.requests.filter((r) => r.path.includes('/manifests/')).map((r) => [r.method, r.authorization?.slice(0, 6)]),
    [
      ['HEAD', undefined],
      ['HEAD', undefined],
      ['HEAD', 'Bearer'],
    ],
  );
});
