// Threat model row "attestation payloads" (docs/security.md): an attestation is the publisher's word, signed or not.
// Properly signed by the trusted key but hostile in shape — nested 100,000 deep, over the 16 MiB bound (declared and
// undeclared), a report of 300,000 findings, fields of the wrong type — each counts as absent with its reason in
// the skip, never crashes or stalls the run, and a well-made attestation beside them still passes.
// A candidate carrying 40 attestations is read only up to 8 (the count bound).
// Without the nesting bound, the size bound, the findings bound or the count bound, the matching case fails.
import t from 'tap';
import { makeBundle, makeKey, pushBundles } from '../helpers/cosign.js';
import { requireEnv } from '../helpers/env.js';
import { testPrefix } from '../helpers/images.js';
import { staleAt } from '../plugins/signatures/harness.js';
import { trivyPredicate, updateWith } from '../plugins/attestations/harness.js';

const prefix = testPrefix('sec-attest');
const VULN = 'https://cosign.sigstore.dev/attestation/vuln/v1';

function statementBytes(registry: string, repo: string, digest: string, predicate: string): Buffer {
  const head = JSON.stringify({ _type: 'https://in-toto.io/Statement/v1', subject: [{ name: `${registry}/${repo}`, digest: { sha256: digest.slice(7) } }], predicateType: VULN });
  return Buffer.from(`${head.slice(0, -1)},"predicate":${predicate}}`);
}

t.test('hostile attestation payloads count as absent, with a reason, and bound the run', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ecdsa');
  const deep = 100_000;
  const cases: Record<string, { predicate?: unknown; raw?: (repo: string, digest: string) => Buffer; reason: RegExp }> = {
    control: { predicate: trivyPredicate(['LOW']), reason: /^$/ },
    nested: { raw: (repo, digest) => statementBytes(env.registry, repo, digest, `${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}`), reason: /nested more than 64 deep/ },
    oversize: { raw: (repo, digest) => statementBytes(env.registry, repo, digest, JSON.stringify({ pad: 'x'.repeat(17 * 1024 * 1024) })), reason: /over the 16777216-byte bound/ },
    findings: { predicate: { scanner: { uri: 'pkg:github/aquasecurity/trivy@0.58.1', result: { SchemaVersion: 2, Results: [{ Vulnerabilities: Array.from({ length: 300_000 }, () => ({ Severity: 'LOW' })) }] } } }, reason: /over its bound: more than 200000 findings/ },
    'wrong-types': { predicate: { scanner: { uri: 7, result: { Results: 'all clear' } } }, reason: /not a Trivy, Grype, SARIF or CycloneDX report/ },
    'not-an-object': { predicate: ['CRITICAL'], reason: /has no scanner/ },
  };
  const targets = [];
  const names = new Map<string, RegExp>();
  for (const [name, c] of Object.entries(cases)) {
    const image = await staleAt(env, prefix, name);
    const where = { registry: env.registry, repo: image.repo, digest: image.v2.digest };
    const bundle = makeBundle(where, key, { predicateType: VULN, ...(c.predicate !== undefined ? { predicate: c.predicate } : {}), ...(c.raw ? { statement: c.raw(image.repo, image.v2.digest) } : {}) });
    await pushBundles(where, [{ bundle, predicateType: VULN }], image.v2.mediaType);
    targets.push(image.target);
    names.set(name, c.reason);
  }
  const started = Date.now();
  const run = await updateWith(targets, { keys: [key.pem] }, { verify: 'enforce', maxSeverity: 'high' });
  t.teardown(run.close);
  const took = Date.now() - started;
  t.ok(took < 120_000, `the run finished in ${took} ms, nothing stalled`);
  t.same(run.applied.map((p) => p.target.name), ['control'], 'only the well-made attestation passed');
  const skipped = new Map(run.report.skipped.map((s) => [s.target.name, s.reason]));
  for (const [name, reason] of names) {
    if (name === 'control') continue;
    t.match(skipped.get(name), /^attestation missing: no verified vulnerability attestation \(/, `${name}: counted as absent`);
    t.match(skipped.get(name), reason, `${name}: the reason says why (${skipped.get(name)?.slice(0, 160)})`);
  }
  t.equal(run.report.summary.failed, 0, 'no target failed: hostile payloads are refusals, not crashes');
});

t.test('a candidate with many attestations costs a bounded number of reads', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const key = makeKey('ecdsa');
  const image = await staleAt(env, prefix, 'many');
  const where = { registry: env.registry, repo: image.repo, digest: image.v2.digest };
  // 40 well-made reports, each a distinct scan: without the bound of 8 per candidate, each would cost its manifest and blob.
  const bundles = Array.from({ length: 40 }, (_, i) => ({
    bundle: makeBundle(where, key, { predicateType: VULN, predicate: trivyPredicate(['LOW'], `2026-11-01T10:${String(i).padStart(2, '0')}:00Z`) }),
    predicateType: VULN,
  }));
  await pushBundles(where, bundles, image.v2.mediaType);
  const run = await updateWith([image.target], { keys: [key.pem] }, { verify: 'enforce', maxSeverity: 'high' });
  t.teardown(run.close);
  t.same(run.applied.map((p) => p.target.name), ['many'], 'the candidate passes on the attestations read');
  // The check's own requests, the referrers probe and index, the .att tag, and 8 manifests and 8 blobs: well under 40.
  t.ok(run.requests.length <= 30, `the run made ${run.requests.length} registry requests for 40 attestations (8 read)`);
});
