// Threat model row "a registry's or token server's answers" (docs/security.md#threat-model): a token endpoint that
// answers 307 towards another origin (here a logging sink on another port) must not make Tidewatch re-send the
// identity token's refresh POST, nor Basic credentials, there. The redirect is refused with an error naming both
// origins; an anonymous token request may still follow a redirect, and a plain exchange still works.
// The registry and its token server are the scripted fake of the registry plugin's tests (a real Distribution
// registry cannot be made to redirect its token realm); the sink is the shared capture server.
// Last, a registry that names a plain-http token realm on another host: no credential goes there. The sink listens on
// loopback, so the realm names it by its IPv4-mapped IPv6 address (`[::ffff:7f00:1]`), which the rule does not count
// as loopback (docs/security.md#threat-model) while the request still reaches the sink and is logged.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { CaptureServer } from '../helpers/capture-server.js';
import { FakeRegistry, digestOf, manifestFor } from '../plugins/registry/fake-registry.js';
import { harness, target } from '../plugins/registry/harness.js';

const REFRESH_TOKEN = 'refresh-token-that-must-stay-home';
const PASSWORD = 'registry-password-that-must-stay-home';

function configDir(registry: string, entry: object): string {
  const dir = mkdtempSync(join(tmpdir(), 'tidewatch-sec-dockercfg-'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ auths: { [registry]: entry } }));
  return dir;
}

async function scenario(t: Test, credentials: 'identity-token' | 'password') {
  const sink = await new CaptureServer().start();
  const reg = await new FakeRegistry({ auth: 'bearer', user: 'bob', password: PASSWORD }).start();
  t.teardown(async () => {
    await sink.close();
    await reg.close();
  });
  const manifest = manifestFor('app');
  reg.push('demo/app', 'latest', manifest);
  reg.options.override = (_req, res, url) => {
    if (url.pathname !== '/token') return false;
    res.writeHead(307, { location: `${sink.origin}/token${url.search}` }).end();
    return true;
  };
  const entry =
    credentials === 'identity-token'
      ? { auth: Buffer.from('bob:').toString('base64'), identitytoken: REFRESH_TOKEN }
      : { auth: Buffer.from(`bob:${PASSWORD}`).toString('base64') };
  const h = await harness([target('app', `${reg.host}/demo/app:latest`, [`${reg.host}/demo/app@${digestOf(manifest.body)}`])], {
    dockerConfigDir: configDir(reg.host, entry),
  });
  t.teardown(() => h.tw.close());
  const result = h.byName(await h.check(), 'app').staleness;
  return { sink, reg, result };
}

function assertNothingLeaked(t: Test, sink: CaptureServer): void {
  for (const r of sink.requests) {
    t.notMatch(r.body, REFRESH_TOKEN, 'the sink received no refresh_token');
    t.notMatch(r.body, PASSWORD, 'the sink received no password in a body');
    t.equal(r.headers.authorization, undefined, 'the sink received no Authorization');
    t.notMatch(r.query.toString(), /refresh|password/, 'nothing in the query either');
  }
}

t.test('an identity token: the refresh POST is not re-sent to another origin, and the error names both', async (t) => {
  const { sink, reg, result } = await scenario(t, 'identity-token');
  t.same(sink.requests, [], 'nothing reached the sink');
  assertNothingLeaked(t, sink);
  t.match(result, { stale: false, error: String });
  t.match(result.error, `http://${reg.host}`, 'the error names the token server\'s origin');
  t.match(result.error, sink.origin, 'and the origin it redirected to');
  t.notMatch(result.error, REFRESH_TOKEN);
});

t.test('Basic credentials to the token server: refused the same way', async (t) => {
  const { sink, reg, result } = await scenario(t, 'password');
  assertNothingLeaked(t, sink);
  t.same(sink.requests, [], 'nothing reached the sink');
  t.match(result.error, `refused a redirect from http://${reg.host} to ${sink.origin}`);
});

t.test('the legitimate exchange still works: credentials to the registry\'s own token realm', async (t) => {
  const reg = await new FakeRegistry({ auth: 'bearer', user: 'bob', password: PASSWORD }).start();
  t.teardown(() => reg.close());
  const manifest = manifestFor('app');
  reg.push('demo/app', 'latest', manifest);
  const h = await harness([target('app', `${reg.host}/demo/app:latest`, [`${reg.host}/demo/app@${digestOf(manifest.body)}`])], {
    dockerConfigDir: configDir(reg.host, { auth: Buffer.from(`bob:${PASSWORD}`).toString('base64') }),
  });
  t.teardown(() => h.tw.close());
  const result = h.byName(await h.check(), 'app').staleness;
  t.same(result, { source: 'registry', stale: false, currentDigest: digestOf(manifest.body), latestDigest: digestOf(manifest.body) });
});

t.test('a plain-http token realm on another host gets neither the identity token nor Basic credentials', async (t) => {
  for (const credentials of ['identity-token', 'password'] as const) {
    const sink = await new CaptureServer().start();
    const reg = await new FakeRegistry({ auth: 'bearer', user: 'bob', password: PASSWORD }).start();
    t.teardown(async () => {
      await sink.close();
      await reg.close();
    });
    sink.answer = () => ({ status: 200, body: { token: 'sink-token' } });
    const realm = `http://[::ffff:7f00:1]:${sink.host.split(':')[1]}/token`;
    const manifest = manifestFor('app');
    reg.push('demo/app', 'latest', manifest);
    reg.options.override = (_req, res, url) => {
      if (!url.pathname.startsWith('/v2/')) return false;
      res.writeHead(401, { 'www-authenticate': `Bearer realm="${realm}",service="fake-registry",scope="repository:demo/app:pull"` }).end();
      return true;
    };
    const entry =
      credentials === 'identity-token'
        ? { auth: Buffer.from('bob:').toString('base64'), identitytoken: REFRESH_TOKEN }
        : { auth: Buffer.from(`bob:${PASSWORD}`).toString('base64') };
    const h = await harness([target('app', `${reg.host}/demo/app:latest`, [`${reg.host}/demo/app@${digestOf(manifest.body)}`])], {
      dockerConfigDir: configDir(reg.host, entry),
    });
    t.teardown(() => h.tw.close());
    const result = h.byName(await h.check(), 'app').staleness;
    t.ok(sink.requests.length > 0, `${credentials}: the realm was asked (anonymously)`);
    t.same(sink.requests.map((r) => r.method), sink.requests.map(() => 'GET'), `${credentials}: no refresh POST`);
    assertNothingLeaked(t, sink);
    t.match(result, { stale: false, error: String }, `${credentials}: the check fails, it does not pass on`);
  }
});
