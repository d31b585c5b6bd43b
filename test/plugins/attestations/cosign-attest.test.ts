// The gate on what the real cosign 3 attests (docs/attestations.md): Debian sid's cosign 3.1 attaches vulnerability
// reports (Trivy's JSON in cosign's vuln predicate) and SLSA provenance v1 to candidates on the local registry, in
// the v3 bundle format and the legacy `.att` tag; `cosign verify-attestation` checks each independently. Under
// enforce: a report above --max-severity, an unattested candidate, one attested by another key and a wrong source
// are refused with a reason starting `attestation `; clean, well-made ones reach apply, pulled by that digest.
// A second run asks the registry nothing new for the same digests (facts kept by digest).
import t from 'tap';
import { generateKeyPair, requireCosign } from '../../helpers/cosign-cli.js';
import { testPrefix } from '../../helpers/images.js';
import { staleAt } from '../signatures/harness.js';
import { attest, cosignVerifiesAttestation, slsaPredicate, trivyPredicate, updateWith } from './harness.js';

const prefix = testPrefix('attest-cosign3');
const REPO = 'https://github.com/acme/app';
const BUILDER = 'https://github.com/slsa-framework/slsa-github-generator/.github/workflows/generator_generic_slsa3.yml@refs/tags/v2.1.0';

t.test('enforce with --max-severity high and --require-provenance, on what cosign 3 writes', async (t) => {
  const found = await requireCosign(t);
  if (!found) return;
  const { env, cosign } = found;
  const [key, stranger] = await Promise.all([generateKeyPair(cosign, 'release'), generateKeyPair(cosign, 'stranger')]);
  const good = async (image: string, legacy = false) => {
    await attest(cosign, key, image, 'vuln', trivyPredicate(['LOW', 'HIGH', 'UNKNOWN']), { legacy });
    await attest(cosign, key, image, 'slsaprovenance1', slsaPredicate(REPO, BUILDER), { legacy });
  };
  const cases = [
    { name: 'clean-v3', make: (i: string) => good(i), expected: 'applied' },
    { name: 'clean-legacy', make: (i: string) => good(i, true), expected: 'applied' },
    {
      name: 'critical',
      make: async (i: string) => {
        await attest(cosign, key, i, 'vuln', trivyPredicate(['CRITICAL', 'CRITICAL', 'HIGH']));
        await attest(cosign, key, i, 'slsaprovenance1', slsaPredicate(REPO, BUILDER));
      },
      expected: /^attestation vulnerabilities: 2 critical above high \(trivy 0\.58\.1\)$/,
    },
    { name: 'unattested', make: async () => undefined, expected: /^attestation missing: no vulnerability attestation$/ },
    {
      name: 'other-key',
      make: async (i: string) => {
        await attest(cosign, stranger, i, 'vuln', trivyPredicate([]));
        await attest(cosign, stranger, i, 'slsaprovenance1', slsaPredicate(REPO, BUILDER));
      },
      expected: /^attestation missing: no verified vulnerability attestation \(no configured key verifies the attestation/,
    },
    {
      name: 'wrong-source',
      make: async (i: string) => {
        await attest(cosign, key, i, 'vuln', trivyPredicate(['LOW']));
        await attest(cosign, key, i, 'slsaprovenance1', slsaPredicate('https://github.com/mallory/app', BUILDER));
      },
      expected: /^attestation provenance: source github\.com\/mallory\/app does not match github\.com\/acme\/\*$/,
    },
  ] as const;
  const staged = [];
  for (const c of cases) {
    const image = await staleAt(env, prefix, c.name);
    const reference = `${env.registry}/${image.repo}@${image.v2.digest}`;
    await c.make(reference);
    staged.push({ ...c, ...image, reference });
  }

  const run = await updateWith(
    staged.map((s) => s.target),
    { keys: [key.publicKey] },
    { verify: 'enforce', maxSeverity: 'high', requireProvenance: `source=github.com/acme/*,builder=https://github.com/slsa-framework/slsa-github-generator/**` },
  );
  t.teardown(run.close);
  const applied = new Map(run.applied.map((p) => [p.target.name, p]));
  const skipped = new Map(run.report.skipped.map((s) => [s.target.name, s.reason]));
  for (const s of staged) {
    if (s.expected === 'applied') {
      t.equal(applied.get(s.name)?.staleness.latestDigest, s.v2.digest, `${s.name}: applied, by the digest attested`);
      const vuln = await cosignVerifiesAttestation(cosign, key, s.reference, 'vuln');
      t.ok(vuln.ok, `${s.name}: cosign verify-attestation accepts the vuln attestation too (${vuln.output.split('\n').pop()})`);
      const slsa = await cosignVerifiesAttestation(cosign, key, s.reference, 'slsaprovenance1');
      t.ok(slsa.ok, `${s.name}: and the provenance`);
    } else {
      t.notOk(applied.has(s.name), `${s.name}: never reached apply`);
      t.match(skipped.get(s.name), s.expected, `${s.name}: ${skipped.get(s.name)}`);
    }
  }
  const critical = staged.find((s) => s.name === 'critical')!;
  t.ok((await cosignVerifiesAttestation(cosign, key, critical.reference, 'vuln')).ok, 'the refused report is a valid attestation: refused for what it says');
  const stranger1 = staged.find((s) => s.name === 'other-key')!;
  t.notOk((await cosignVerifiesAttestation(cosign, key, stranger1.reference, 'vuln')).ok, "cosign refuses the stranger's attestation under our key too");

  // The same digests again: facts are kept by digest, so the gates ask the registry for nothing but the checks' own requests.
  const before = run.requests.length;
  const perCheck = before; // the first run's requests: checks + attestation reads
  await run.update();
  const second = run.requests.length - before;
  t.ok(second < perCheck, `the second run costs fewer requests (${second} < ${perCheck})`);
  t.equal(second, staged.length, `the second run makes exactly one manifest request per image (${second})`);
});
