// Signature verdicts against the real local registry (Distribution 2.8: no referrers API, so every
// lookup exercises the referrers-tag fallback), in-process: the registry plugin's REGISTRY_CLIENT service,
// the signatures plugin's review tap, signatures made with Node's crypto in cosign's formats
// (test/helpers/cosign.ts). Each case fails when the check it names breaks (docs/signatures.md).
import t from 'tap';
import { createTidewatch, type Target, type TidewatchEvent } from '../../../core/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { signaturesPlugin } from '../../../plugins/signatures/index.js';
import { COSIGN, makeBundle, makeKey, pushBundles, signLegacy, type TestKey } from '../../helpers/cosign.js';
import { requireEnv, type TestEnv } from '../../helpers/env.js';
import { testPrefix } from '../../helpers/images.js';
import { emptyConfigDir, stubRuntime, target } from '../registry/harness.js';
import { checkAll, requests, staleAt } from './harness.js';
import { FINDINGS, readFinding } from '../../../core/index.js';

const prefix = testPrefix('sig-verify');
const staleImage = (env: TestEnv, name: string, spec: { index?: boolean } = {}) => staleAt(env, prefix, name, spec);

t.test('legacy .sig signatures: the verdicts, and a cached verdict costs no request', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const keys: Record<string, TestKey> = { ecdsa: makeKey('ecdsa'), ed25519: makeKey('ed25519'), rsa: makeKey('rsa') };
  const other = makeKey('ecdsa');
  const cases: Target[] = [];
  const expect = new Map<string, [string, RegExp]>();
  for (const kind of ['ecdsa', 'ed25519', 'rsa'] as const) {
    const { target: tg, v2 } = await staleImage(env, `legacy-${kind}`);
    await signLegacy({ registry: env.registry, repo: `${prefix}/legacy-${kind}`, digest: v2.digest }, [keys[kind]!]);
    cases.push(tg);
    expect.set(tg.name, ['verified', new RegExp(`signed by key ${kind === 'ecdsa' ? 'ecdsa-p256' : kind}`)]);
  }
  const unsigned = await staleImage(env, 'unsigned');
  cases.push(unsigned.target);
  expect.set('unsigned', ['unsigned', new RegExp(`^no cosign signature for ${unsigned.v2.digest}$`)]);

  const byOther = await staleImage(env, 'other-key');
  await signLegacy({ registry: env.registry, repo: `${prefix}/other-key`, digest: byOther.v2.digest }, [other]);
  cases.push(byOther.target);
  expect.set('other-key', ['invalid', /no configured key verifies the legacy signature/]);

  const elsewhere = await staleImage(env, 'other-digest');
  await signLegacy({ registry: env.registry, repo: `${prefix}/other-digest`, digest: elsewhere.v2.digest }, [keys['ecdsa']!], {
    signedDigest: `sha256:${'ab'.repeat(32)}`,
  });
  cases.push(elsewhere.target);
  expect.set('other-digest', ['invalid', new RegExp(`names sha256:${'ab'.repeat(32)}, not ${elsewhere.v2.digest}`)]);

  const tampered = await staleImage(env, 'tampered');
  await signLegacy({ registry: env.registry, repo: `${prefix}/tampered`, digest: tampered.v2.digest }, [keys['ecdsa']!], { tamper: true });
  cases.push(tampered.target);
  expect.set('tampered', ['invalid', /no configured key verifies/]);

  // A multi-platform image is signed on its index digest: the digest the tag points to.
  const multi = await staleImage(env, 'multi', { index: true });
  await signLegacy({ registry: env.registry, repo: `${prefix}/multi`, digest: multi.v2.digest }, [keys['ecdsa']!]);
  cases.push(multi.target);
  expect.set('multi', ['verified', /signed by key ecdsa-p256/]);

  const run = await checkAll(cases, { verify: 'enforce', keys: Object.values(keys).map((k) => k.pem) });
  t.teardown(run.close);
  for (const [name, [verdict, reason]] of expect) {
    const result = run.results.get(name)!;
    t.equal(result.staleness.stale, true, `${name} is stale`);
    t.equal(readFinding(result.staleness, FINDINGS.signature)?.verdict, verdict, `${name}: ${verdict}`);
    t.match(readFinding(result.staleness, FINDINGS.signature)?.reason, reason, `${name}: the reason`);
    t.equal(readFinding(result.staleness, FINDINGS.signature)?.digest, result.staleness.latestDigest, `${name}: the digest verified is the candidate`);
  }
  t.equal(run.results.get('multi')?.staleness.latestDigest, multi.v2.digest, 'the index digest is the candidate');
  const verifications = run.events.filter((e) => e.type === 'signature_verification');
  t.equal(verifications.length, expect.size, 'one verification per candidate');

  // The same candidates again, in a second core sharing nothing: the cache is per process, so here the
  // counts are checked within one core, by a second check.
  const before = requests(run.events).length;
  t.ok(before > 0);
  t.end();
});

t.test('a second check of the same candidates makes no signature request', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ecdsa');
  const cases: Target[] = [];
  for (const name of ['cache-a', 'cache-b']) {
    const { target: tg, v2 } = await staleImage(env, name);
    await signLegacy({ registry: env.registry, repo: `${prefix}/${name}`, digest: v2.digest }, [key]);
    cases.push(tg);
  }
  const events: TidewatchEvent[] = [];
  const tw = await createTidewatch({
    plugins: [
      stubRuntime(() => cases),
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } },
      { plugin: signaturesPlugin, options: { verify: 'enforce', keys: [key.pem] } },
      { name: 'recorder', apply: (core) => core.hooks.event.tap('recorder', (e) => void events.push(e)) },
    ],
  });
  t.teardown(() => tw.close());
  const first = await tw.check();
  const firstRequests = requests(events);
  t.ok(first.results.every((r) => readFinding(r.staleness, FINDINGS.signature)?.verdict === 'verified'));
  // The /v2/ ping and the two manifest HEADs; the referrers API once for the registry (404: remembered as
  // absent); per candidate the referrers tag (404), the .sig manifest and its payload blob, and its version (its
  // manifest and config, read once by digest: docs/versions.md).
  t.equal(firstRequests.length, 1 + 2 + 1 + 2 * 3 + 2 * 2, 'ping, 2 manifests, the referrers API once, 3 per candidate, its version');
  t.equal(firstRequests.filter((r) => r.code === '404').length, 1 + 2, 'the referrers API once, the referrers tag per candidate');
  events.length = 0;
  const second = await tw.check();
  t.ok(second.results.every((r) => readFinding(r.staleness, FINDINGS.signature)?.verdict === 'verified'), 'still verified');
  t.equal(requests(events).length, 2, 'the second check asks only for the two tags');
  t.equal(events.filter((e) => e.type === 'signature_verification').length, 0, 'no verification made again');
});

t.test('v3 bundles under the referrers tag: signature, attestation, other digest, other key', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ecdsa');
  const other = makeKey('ed25519');
  const expect = new Map<string, [string, RegExp]>();
  const cases: Target[] = [];
  const add = async (name: string, bundles: (digest: string, repo: string) => { bundle: Record<string, unknown>; predicateType?: string }[], verdict: string, reason: RegExp) => {
    const { target: tg, v2 } = await staleImage(env, name);
    const repo = `${prefix}/${name}`;
    await pushBundles({ registry: env.registry, repo, digest: v2.digest }, bundles(v2.digest, repo), v2.mediaType);
    cases.push(tg);
    expect.set(name, [verdict, reason]);
  };
  const tg = (digest: string, repo: string) => ({ registry: env.registry, repo, digest });
  await add('bundle-ok', (d, r) => [{ bundle: makeBundle(tg(d, r), key) }], 'verified', /signed by key ecdsa-p256 .* \(Sigstore bundle\)/);
  const sbom = 'https://spdx.dev/Document';
  await add('bundle-attestation', (d, r) => [{ bundle: makeBundle(tg(d, r), key, { predicateType: sbom }), predicateType: sbom }], 'unsigned', /only 1 attestation/);
  await add('bundle-other-digest', (d, r) => [{ bundle: makeBundle(tg(d, r), key, { subjectDigest: `sha256:${'cd'.repeat(32)}` }) }], 'invalid', /subject is sha256:cdcd/);
  await add('bundle-other-key', (d, r) => [{ bundle: makeBundle(tg(d, r), other) }], 'invalid', /no configured key verifies the bundle/);
  // An attestation listed first and a signature after it: the signature decides.
  await add(
    'bundle-both',
    (d, r) => [{ bundle: makeBundle(tg(d, r), key, { predicateType: sbom }), predicateType: sbom }, { bundle: makeBundle(tg(d, r), key) }],
    'verified',
    /Sigstore bundle/,
  );
  const run = await checkAll(cases, { verify: 'enforce', keys: [key.pem] });
  t.teardown(run.close);
  for (const [name, [verdict, reason]] of expect) {
    const sig = readFinding(run.results.get(name)?.staleness, FINDINGS.signature);
    t.equal(sig?.verdict, verdict, `${name}: ${verdict}`);
    t.match(sig?.reason, reason, `${name}: ${sig?.reason}`);
  }
  t.ok(COSIGN.bundle);
});

t.test('an unreachable registry is an error verdict, never cached', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ecdsa');
  // A stale answer naming a digest of a repository on a registry that refuses connections.
  const broken = target('error', '127.0.0.1:1/nowhere/app:latest');
  const digest = `sha256:${'ef'.repeat(32)}`;
  const events: TidewatchEvent[] = [];
  const tw = await createTidewatch({
    plugins: [
      stubRuntime(() => [broken]),
      {
        name: 'local-source',
        apply: (core) =>
          core.hooks.checkStaleness.tap({ name: 'local-source', stage: -10 }, () => ({ source: 'registry', stale: true, latestDigest: digest })),
      },
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir(), requestTimeoutMs: 2000 } },
      { plugin: signaturesPlugin, options: { verify: 'warn', keys: [key.pem] } },
      { name: 'recorder', apply: (core) => core.hooks.event.tap('recorder', (e) => void events.push(e)) },
    ],
  });
  t.teardown(() => tw.close());
  for (const round of [1, 2]) {
    const report = await tw.check();
    const sig = readFinding(report.results[0]?.staleness, FINDINGS.signature);
    t.equal(sig?.verdict, 'error', `round ${round}: error`);
    t.match(sig?.reason, /cannot read the signatures/);
    t.equal(sig?.policy, 'warn');
  }
  t.equal(events.filter((e) => e.type === 'signature_verification').length, 2, 'an error is not cached: verified again');
});

t.test('what a registry sends is bounded: an oversized signature payload is an error, not read', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ecdsa');
  const { target: tg, v2 } = await staleImage(env, 'oversized');
  const repo = `${prefix}/oversized`;
  // A real signature whose payload is padded past the 16 KiB bound.
  const payload = Buffer.from(JSON.stringify({
    critical: { identity: { 'docker-reference': `${env.registry}/${repo}` }, image: { 'docker-manifest-digest': v2.digest }, type: 'cosign container image signature' },
    optional: { padding: 'x'.repeat(20_000) },
  }));
  const { pushBlob, putManifest, sha256 } = await import('../../helpers/images.js');
  const { signWith } = await import('../../helpers/cosign.js');
  await pushBlob(env.registry, repo, payload, sha256(payload));
  const config = Buffer.from('{}');
  await pushBlob(env.registry, repo, config, sha256(config));
  const manifest = Buffer.from(JSON.stringify({
    schemaVersion: 2,
    mediaType: COSIGN.ociManifest,
    config: { mediaType: COSIGN.ociConfig, digest: sha256(config), size: config.length },
    layers: [{ mediaType: COSIGN.simpleSigning, digest: sha256(payload), size: payload.length, annotations: { [COSIGN.signatureAnnotation]: signWith(key, payload).toString('base64') } }],
  }));
  await putManifest(env.registry, repo, `${v2.digest.replace(':', '-')}.sig`, manifest, COSIGN.ociManifest);
  const run = await checkAll([tg], { verify: 'enforce', keys: [key.pem] });
  t.teardown(run.close);
  const sig = readFinding(run.results.get('oversized')?.staleness, FINDINGS.signature);
  t.equal(sig?.verdict, 'error');
  t.match(sig?.reason, /over the 16384-byte bound/);
});

t.test('the tidewatch.verify label turns verification on or off per container', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ed25519');
  const labelled = await staleImage(env, 'label-on');
  const plain = await staleImage(env, 'label-none');
  const offed = await staleImage(env, 'label-off');
  const globalOff = await checkAll(
    [{ ...labelled.target, labels: { 'tidewatch.verify': 'enforce' } }, plain.target],
    { verify: 'off', keys: [key.pem] },
  );
  t.teardown(globalOff.close);
  t.match(readFinding(globalOff.results.get('label-on')?.staleness, FINDINGS.signature), { verdict: 'unsigned', policy: 'enforce' }, 'the label turns it on');
  t.equal(readFinding(globalOff.results.get('label-none')?.staleness, FINDINGS.signature), undefined, 'absent when the policy is off');
  const globalWarn = await checkAll([{ ...offed.target, labels: { 'com.centurylinklabs.watchtower.verify': 'off' } }, plain.target], { verify: 'warn', keys: [key.pem] });
  t.teardown(globalWarn.close);
  t.equal(readFinding(globalWarn.results.get('label-off')?.staleness, FINDINGS.signature), undefined, 'the label turns it off (alias prefix)');
  t.match(readFinding(globalWarn.results.get('label-none')?.staleness, FINDINGS.signature), { verdict: 'unsigned', policy: 'warn' });
});
