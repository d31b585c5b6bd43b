// Signature reads go through the registry plugin's REGISTRY_CLIENT service, so they authenticate and wait
// out a 429 exactly as the staleness checks do (docs/plugins.md#services, docs/signatures.md): a proxy in front
// of the real registry demands Bearer tokens (issued for the configured credentials) and answers the first
// `.sig` lookup with 429 Retry-After.
import t from 'tap';
import { createTidewatch, type TidewatchEvent } from '../../../core/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { signaturesPlugin } from '../../../plugins/signatures/index.js';
import { makeKey, signLegacy } from '../../helpers/cosign.js';
import { requireEnv } from '../../helpers/env.js';
import { testPrefix } from '../../helpers/images.js';
import { emptyConfigDir, stubRuntime } from '../registry/harness.js';
import { RegistryProxy } from '../registry/registry-proxy.js';
import { staleAt } from './harness.js';
import { FINDINGS, readFinding } from '../../../core/index.js';

const prefix = testPrefix('sig-service');

t.test('Bearer auth and a 429 on the signature lookup, through the registry plugin', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ecdsa');
  const image = await staleAt(env, prefix, 'authed');
  await signLegacy({ registry: env.registry, repo: image.repo, digest: image.v2.digest }, [key]);
  let limited = 0;
  const proxy = await new RegistryProxy({
    upstream: env.registry,
    bearer: { user: 'sig-user', password: 'sig-secret' },
    inject: (req) => {
      if (!req.path.endsWith('.sig') || limited > 0 || !req.authorization) return undefined;
      limited++;
      return { status: 429, headers: { 'retry-after': '1', 'content-type': 'application/json' }, body: '{"errors":[{"code":"TOOMANYREQUESTS"}]}' };
    },
  }).start();
  t.teardown(() => proxy.close());
  const via = (ref: string) => ref.replace(env.registry, proxy.host);
  const tg = { ...image.target, image: via(image.target.image), repoDigests: image.target.repoDigests.map(via) };
  const events: TidewatchEvent[] = [];
  const tw = await createTidewatch({
    plugins: [
      stubRuntime(() => [tg]),
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir(), repoUser: 'sig-user', repoPass: 'sig-secret' } },
      { plugin: signaturesPlugin, options: { verify: 'enforce', keys: [key.pem] } },
      { name: 'recorder', apply: (core) => core.hooks.event.tap('recorder', (e) => void events.push(e)) },
    ],
  });
  t.teardown(() => tw.close());
  const started = Date.now();
  const report = await tw.check();
  const sig = readFinding(report.results[0]?.staleness, FINDINGS.signature);
  t.equal(sig?.verdict, 'verified', sig?.reason ?? '');
  t.equal(limited, 1, 'the .sig lookup was answered 429 once');
  t.ok(Date.now() - started >= 900, 'and waited for Retry-After');
  const sigLookups = proxy.requests.filter((r) => r.path.endsWith('.sig'));
  t.equal(sigLookups.length, 2, 'then asked again');
  const signatureReads = proxy.requests.filter((r) => /\/(referrers\/|manifests\/sha256-|blobs\/)/.test(r.path));
  t.ok(signatureReads.length >= 4, 'referrers API, referrers tag, .sig and payload were read through the proxy');
  t.ok(signatureReads.every((r) => r.authorization?.startsWith('Bearer ')), 'every signature read carried the Bearer token');
  t.ok(proxy.tokenRequests.every((r) => r.authorization?.startsWith('Basic ')), 'tokens were asked with the configured credentials');
  t.ok(events.some((e) => e.type === 'registry_request' && e.data.code === '429'), 'the 429 is counted like any registry request');
});
