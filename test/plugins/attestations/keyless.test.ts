// Keyless attestations (docs/attestations.md#what-is-read) against the real registry: a v3 bundle carrying a
// Fulcio-style certificate from a test CA and an RFC 3161 timestamp from `openssl ts`, both trusted by a
// trusted_root.json made for the test (test/helpers/sigstore-ca.ts), as the signature tests do. A clean report so
// attested passes; the same report from a CA outside the root, for another identity, or without a timestamp counts
// as absent and is refused under enforce.
import t from 'tap';
import type { Target } from '../../../core/index.js';
import { makeBundle, pushBundles } from '../../helpers/cosign.js';
import { requireEnv } from '../../helpers/env.js';
import { testPrefix } from '../../helpers/images.js';
import { makeKeyless, type Keyless } from '../../helpers/sigstore-ca.js';
import { staleAt } from '../signatures/harness.js';
import { trivyPredicate, updateWith } from './harness.js';

const prefix = testPrefix('attest-keyless');
const IDENTITY = 'https://github.com/acme/app/.github/workflows/release.yml@refs/heads/main';
const ISSUER = 'https://token.actions.githubusercontent.test';
const VULN = 'https://cosign.sigstore.dev/attestation/vuln/v1';

t.test('keyless vulnerability attestations: identity, issuer, timestamp and CA decide', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const trusted = makeKeyless(IDENTITY, ISSUER);
  const stranger = makeKeyless(IDENTITY, ISSUER, { caName: 'someone-else' });
  const impostor = makeKeyless('https://github.com/mallory/app/.github/workflows/release.yml@refs/heads/main', ISSUER);
  const targets: Target[] = [];
  const add = async (name: string, signer: Keyless, withTimestamp = true) => {
    const image = await staleAt(env, prefix, name);
    const where = { registry: env.registry, repo: image.repo, digest: image.v2.digest };
    const bundle = makeBundle(where, signer.key, {
      predicateType: VULN,
      predicate: trivyPredicate(['LOW']),
      certificate: signer.certificate,
      ...(withTimestamp ? { timestamp: (sig: Buffer) => signer.timestamp(sig) } : {}),
    });
    await pushBundles(where, [{ bundle, predicateType: VULN }], image.v2.mediaType);
    targets.push(image.target);
  };
  await add('keyless-ok', trusted);
  await add('keyless-other-ca', stranger);
  await add('keyless-no-timestamp', trusted, false);
  // The impostor's CA is not the trusted root's either: makeKeyless makes a CA per call.
  await add('keyless-other-identity', impostor);

  const run = await updateWith(targets, { identity: IDENTITY, issuer: ISSUER, trustedRoot: trusted.trustedRoot }, { verify: 'enforce', maxSeverity: 'high' });
  t.teardown(run.close);
  t.same(run.applied.map((p) => p.target.name), ['keyless-ok'], 'only the attestation by the trusted identity, CA and timestamp passed');
  const skipped = new Map(run.report.skipped.map((s) => [s.target.name, s.reason]));
  t.match(skipped.get('keyless-other-ca'), /^attestation missing: no verified vulnerability attestation \(the keyless bundle does not verify/);
  t.match(skipped.get('keyless-no-timestamp'), /^attestation missing: no verified vulnerability attestation \(the keyless bundle does not verify.*timestamp/);
  t.match(skipped.get('keyless-other-identity'), /^attestation missing: no verified vulnerability attestation \(the keyless bundle does not verify/);

  // The same well-made attestation, verified for another identity (same CA, same root): refused.
  const ok = targets.filter((x) => x.name === 'keyless-ok');
  const other = await updateWith(ok, { identity: 'https://github.com/acme/other/.github/workflows/release.yml@refs/heads/main', issuer: ISSUER, trustedRoot: trusted.trustedRoot }, { verify: 'enforce', maxSeverity: 'high' });
  t.teardown(other.close);
  t.same(other.applied, [], 'another configured identity: not applied');
  t.match(other.report.skipped[0]?.reason, /^attestation missing: no verified vulnerability attestation/);
});
