// The registry source against the real Distribution registries of the test environment: anonymous
// on one port, htpasswd Basic on the other.
import t from 'tap';
import { docker, requireEnv } from '../../helpers/env.js';
import { pullImage, pushImage, removeImages, testPrefix } from '../../helpers/images.js';
import { harness, target } from './harness.js';

const prefix = testPrefix('registry-real');

t.test('anonymous registry: same digest is up to date, a new push to the tag is stale', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const a = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'A' });
  let current = a;
  const h = await harness(() => [target('app', a.ref, [current.digestRef])]);
  t.teardown(() => h.tw.close());

  let s = h.byName(await h.check(), 'app').staleness;
  t.same(s, { source: 'registry', stale: false, currentDigest: a.digest, latestDigest: a.digest });

  const b = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'B' });
  t.not(b.digest, a.digest);
  s = h.byName(await h.check(), 'app').staleness;
  t.same(s, { source: 'registry', stale: true, currentDigest: a.digest, latestDigest: b.digest });

  current = b;
  s = h.byName(await h.check(), 'app').staleness;
  t.equal(s.stale, false, 'after "pulling" B the target is current again');
});

t.test('htpasswd registry: Basic through repoUser/repoPass', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const auth = { username: env.authUser, password: env.authPassword };
  const a = await pushImage({ registry: env.authRegistry, repo: `${prefix}/private`, marker: 'A', auth });
  const targets = [target('private', a.ref, [a.digestRef])];

  const withCreds = await harness(targets, { repoUser: env.authUser, repoPass: env.authPassword });
  t.teardown(() => withCreds.tw.close());
  t.same(withCreds.byName(await withCreds.check(), 'private').staleness, {
    source: 'registry',
    stale: false,
    currentDigest: a.digest,
    latestDigest: a.digest,
  });
  const b = await pushImage({ registry: env.authRegistry, repo: `${prefix}/private`, marker: 'B', auth });
  const stale = withCreds.byName(await withCreds.check(), 'private').staleness;
  t.equal(stale.stale, true);
  t.equal(stale.latestDigest, b.digest);

  const anonymous = await harness(targets);
  t.teardown(() => anonymous.tw.close());
  const refused = anonymous.byName(await anonymous.check(), 'private').staleness;
  t.equal(refused.stale, false);
  t.match(refused.error, /requires authentication/);

  const wrong = await harness(targets, { repoUser: env.authUser, repoPass: 'not-the-password' });
  t.teardown(() => wrong.tw.close());
  t.match(wrong.byName(await wrong.check(), 'private').staleness.error, /refused the credentials/);
});

t.test('multi-arch: the index digest the engine recorded after a pull by tag is up to date', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  t.teardown(() => removeImages(engine, prefix));
  for (const format of ['docker', 'oci'] as const) {
    const pushed = await pushImage({ registry: env.registry, repo: `${prefix}/multi-${format}`, marker: format, index: true, format });
    await pullImage(engine, pushed.ref);
    const image = await engine.getImage(pushed.ref).inspect();
    t.ok(image.RepoDigests.includes(pushed.digestRef), `the engine recorded the ${format} index digest`);
    const h = await harness([{ ...target('multi', pushed.ref, image.RepoDigests), imageId: image.Id }]);
    const s = h.byName(await h.check(), 'multi').staleness;
    await h.tw.close();
    t.same(s, { source: 'registry', stale: false, currentDigest: pushed.digest, latestDigest: pushed.digest }, format);
    t.not(pushed.digest, pushed.manifestDigest, 'the platform manifest digest differs from the index digest');
  }
});
