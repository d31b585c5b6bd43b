// Every kind of credential against the real htpasswd registry: config.json, a credential helper on
// PATH (credsStore and credHelpers), and the Bearer flow through a token server in front of it.
import t from 'tap';
import { requireEnv } from '../../helpers/env.js';
import { pushImage, testPrefix } from '../../helpers/images.js';
import { basicAuth, configDir, installHelper } from './cred-fixtures.js';
import { harness, target } from './harness.js';
import { RegistryProxy } from './registry-proxy.js';

const prefix = testPrefix('registry-auth');

t.test('Basic through config.json auths', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const auth = { username: env.authUser, password: env.authPassword };
  const a = await pushImage({ registry: env.authRegistry, repo: `${prefix}/cfg`, marker: 'A', auth });
  const dir = configDir({ auths: { [`https://${env.authRegistry}`]: { auth: basicAuth(env.authUser, env.authPassword) } } });
  const h = await harness([target('cfg', a.ref, [a.digestRef])], { dockerConfigDir: dir });
  t.teardown(() => h.tw.close());
  t.same(h.byName(await h.check(), 'cfg').staleness, { source: 'registry', stale: false, currentDigest: a.digest, latestDigest: a.digest });
  const b = await pushImage({ registry: env.authRegistry, repo: `${prefix}/cfg`, marker: 'B', auth });
  t.equal(h.byName(await h.check(), 'cfg').staleness.latestDigest, b.digest);

  const wrong = configDir({ auths: { [env.authRegistry]: { auth: basicAuth(env.authUser, 'nope') } } });
  const bad = await harness([target('cfg', a.ref, [a.digestRef])], { dockerConfigDir: wrong });
  t.teardown(() => bad.tw.close());
  t.match(bad.byName(await bad.check(), 'cfg').staleness.error, /refused the credentials from .*config\.json auths/);
});

t.test('Basic through a credential helper on PATH (credsStore and credHelpers)', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const auth = { username: env.authUser, password: env.authPassword };
  const a = await pushImage({ registry: env.authRegistry, repo: `${prefix}/helper`, marker: 'A', auth });
  const helper = installHelper('tw-test-store', { [env.authRegistry]: { Username: env.authUser, Secret: env.authPassword } });

  for (const config of [{ credsStore: helper.name }, { credHelpers: { [env.authRegistry]: helper.name } }]) {
    const h = await harness([target('helper', a.ref, [a.digestRef])], { dockerConfigDir: configDir(config) });
    const s = h.byName(await h.check(), 'helper').staleness;
    await h.tw.close();
    t.same(s, { source: 'registry', stale: false, currentDigest: a.digest, latestDigest: a.digest }, JSON.stringify(config));
  }
  t.same(helper.asked(), [env.authRegistry, env.authRegistry]);
});

t.test('Bearer through a token server in front of the real registry', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const auth = { username: env.authUser, password: env.authPassword };
  const one = await pushImage({ registry: env.authRegistry, repo: `${prefix}/one`, marker: '1', auth });
  const two = await pushImage({ registry: env.authRegistry, repo: `${prefix}/two`, marker: '2', auth });
  const proxy = await new RegistryProxy({
    upstream: env.authRegistry,
    upstreamAuth: { user: env.authUser, password: env.authPassword },
    bearer: { user: 'bearer-user', password: 'bearer-pass' },
  }).start();
  t.teardown(() => proxy.close());
  // The targets name the proxy: to Tidewatch it is the registry.
  const via = (ref: string) => ref.replace(env.authRegistry, proxy.host);
  const targets = [
    target('one-a', via(one.ref), [via(one.digestRef)]),
    target('one-b', via(one.ref), [via(one.digestRef)]),
    target('two', via(two.ref), [`${proxy.host}/${prefix}/two@sha256:${'7'.repeat(64)}`]),
  ];
  const dir = configDir({ auths: { [proxy.host]: { auth: basicAuth('bearer-user', 'bearer-pass') } } });
  const h = await harness(targets, { dockerConfigDir: dir });
  t.teardown(() => h.tw.close());

  let report = await h.check();
  t.same(h.byName(report, 'one-a').staleness, { source: 'registry', stale: false, currentDigest: one.digest, latestDigest: one.digest });
  t.equal(h.byName(report, 'one-b').staleness.stale, false);
  t.same(h.byName(report, 'two').staleness, {
    source: 'registry',
    stale: true,
    currentDigest: `sha256:${'7'.repeat(64)}`,
    latestDigest: two.digest,
  });
  t.same(proxy.tokenRequests.map((r) => r.scopes).sort(), [[`repository:${prefix}/one:pull`], [`repository:${prefix}/two:pull`]]);
  t.ok(proxy.tokenRequests.every((r) => r.authorization === `Basic ${basicAuth('bearer-user', 'bearer-pass')}`));
  // One HEAD per image, and one read of the stale candidate's version by its digest (docs/versions.md).
  t.equal(proxy.manifestRequests(), 3, 'one HEAD per image, and the version of the one candidate');

  report = await h.check();
  t.equal(proxy.tokenRequests.length, 2, 'the next run reuses both tokens');
  t.equal(proxy.manifestRequests(), 5, 'one HEAD per image again; the candidate\'s version is not read again (cached by digest)');
  t.notOk(report.results.some((r) => r.staleness.error));

  const wrong = await harness(targets, {
    dockerConfigDir: configDir({ auths: { [proxy.host]: { auth: basicAuth('bearer-user', 'wrong') } } }),
  });
  t.teardown(() => wrong.tw.close());
  const refused = wrong.byName(await wrong.check(), 'one-a').staleness;
  t.equal(refused.stale, false);
  t.match(refused.error, /token server .* refused the credentials/);
});
