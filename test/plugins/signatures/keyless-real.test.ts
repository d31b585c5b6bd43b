// Keyless verification (docs/signatures.md#keyless) against the real registry: a v3 bundle carrying a
// Fulcio-style certificate from a test CA and an RFC 3161 timestamp from `openssl ts`, both trusted by a
// trusted_root.json made for the test (test/helpers/sigstore-ca.ts). Accepted only for the configured
// identity (exact or by expression) and issuer, with a timestamp, from a CA of the root.
import t from 'tap';
import type { Target } from '../../../core/index.js';
import { makeBundle, pushBundles, signLegacy } from '../../helpers/cosign.js';
import { requireEnv } from '../../helpers/env.js';
import { testPrefix } from '../../helpers/images.js';
import { makeKeyless, type Keyless } from '../../helpers/sigstore-ca.js';
import { checkAll, staleAt } from './harness.js';
import { FINDINGS, readFinding } from '../../../core/index.js';

const prefix = testPrefix('sig-keyless');
const IDENTITY = 'release@tidewatch.test';
const ISSUER = 'https://issuer.tidewatch.test';

t.test('keyless bundles: identity, issuer, timestamp and CA decide', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const trusted = makeKeyless(IDENTITY, ISSUER);
  const stranger = makeKeyless(IDENTITY, ISSUER, { caName: 'someone-else' });
  const cases: Target[] = [];
  const add = async (name: string, signer: Keyless, withTimestamp = true) => {
    const image = await staleAt(env, prefix, name);
    const where = { registry: env.registry, repo: image.repo, digest: image.v2.digest };
    const bundle = makeBundle(where, signer.key, { certificate: signer.certificate, ...(withTimestamp ? { timestamp: (sig: Buffer) => signer.timestamp(sig) } : {}) });
    await pushBundles(where, [{ bundle }], image.v2.mediaType);
    cases.push(image.target);
  };
  await add('keyless-ok', trusted);
  await add('keyless-other-ca', stranger);
  await add('keyless-no-timestamp', trusted, false);

  const exact = await checkAll(cases, { verify: 'enforce', identity: IDENTITY, issuer: ISSUER, trustedRoot: trusted.trustedRoot });
  t.teardown(exact.close);
  const sig = (name: string) => readFinding(exact.results.get(name)?.staleness, FINDINGS.signature);
  t.equal(sig('keyless-ok')?.verdict, 'verified', sig('keyless-ok')?.reason ?? 'verified');
  t.match(sig('keyless-ok')?.reason, `signed by ${IDENTITY} via ${ISSUER}`);
  t.equal(sig('keyless-other-ca')?.verdict, 'invalid', 'a certificate from a CA not in the root');
  t.match(sig('keyless-other-ca')?.reason, /keyless bundle does not verify/);
  t.equal(sig('keyless-no-timestamp')?.verdict, 'invalid', 'no timestamp: the certificate cannot be placed in time');
  t.match(sig('keyless-no-timestamp')?.reason, /timestamp/);

  const ok = cases.filter((c) => c.name === 'keyless-ok');
  const regexp = await checkAll(ok, { verify: 'enforce', identityRegexp: '^release@tidewatch\\.test$', issuer: ISSUER, trustedRoot: trusted.trustedRoot });
  t.teardown(regexp.close);
  t.equal(readFinding(regexp.results.get('keyless-ok')?.staleness, FINDINGS.signature)?.verdict, 'verified', 'an identity expression that matches');

  const otherIdentity = await checkAll(ok, { verify: 'enforce', identity: 'someone@else.test', issuer: ISSUER, trustedRoot: trusted.trustedRoot });
  t.teardown(otherIdentity.close);
  t.equal(readFinding(otherIdentity.results.get('keyless-ok')?.staleness, FINDINGS.signature)?.verdict, 'invalid', 'another identity');

  const otherIssuer = await checkAll(ok, { verify: 'enforce', identity: IDENTITY, issuer: 'https://accounts.other.test', trustedRoot: trusted.trustedRoot });
  t.teardown(otherIssuer.close);
  t.equal(readFinding(otherIssuer.results.get('keyless-ok')?.staleness, FINDINGS.signature)?.verdict, 'invalid', 'another issuer');
});

t.test("cosign's legacy keyless layers: certificate and RFC 3161 timestamp annotations", async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const trusted = makeKeyless(IDENTITY, ISSUER);
  const pem = (der: Buffer) => `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
  const cases: Target[] = [];
  const add = async (name: string, withTimestamp: boolean, signedDigest?: string) => {
    const image = await staleAt(env, prefix, name);
    await signLegacy({ registry: env.registry, repo: image.repo, digest: image.v2.digest }, [trusted.key], {
      ...(signedDigest ? { signedDigest } : {}),
      annotations: (raw) => ({
        'dev.sigstore.cosign/certificate': pem(trusted.certificate),
        'dev.sigstore.cosign/chain': '',
        ...(withTimestamp ? { 'dev.sigstore.cosign/rfc3161timestamp': JSON.stringify({ SignedRFC3161Timestamp: trusted.timestamp(raw).toString('base64') }) } : {}),
      }),
    });
    cases.push(image.target);
  };
  await add('legacy-keyless-ok', true);
  await add('legacy-keyless-no-ts', false);
  await add('legacy-keyless-other-digest', true, `sha256:${'ab'.repeat(32)}`);
  const run = await checkAll(cases, { verify: 'enforce', identity: IDENTITY, issuer: ISSUER, trustedRoot: trusted.trustedRoot });
  t.teardown(run.close);
  const sig = (name: string) => readFinding(run.results.get(name)?.staleness, FINDINGS.signature);
  t.equal(sig('legacy-keyless-ok')?.verdict, 'verified', sig('legacy-keyless-ok')?.reason ?? '');
  t.match(sig('legacy-keyless-ok')?.reason, /legacy \.sig, keyless/);
  t.equal(sig('legacy-keyless-no-ts')?.verdict, 'invalid', 'no timestamp');
  t.equal(sig('legacy-keyless-other-digest')?.verdict, 'invalid', 'a keyless signature over another digest');
  t.match(sig('legacy-keyless-other-digest')?.reason, /names sha256:abab/);
  const otherIdentity = await checkAll(cases.slice(0, 1), { verify: 'enforce', identity: 'x@y.test', issuer: ISSUER, trustedRoot: trusted.trustedRoot });
  t.teardown(otherIdentity.close);
  t.equal(readFinding(otherIdentity.results.get('legacy-keyless-ok')?.staleness, FINDINGS.signature)?.verdict, 'invalid', 'another identity');
});
