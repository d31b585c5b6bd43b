// Reading what scanners and builders write (docs/attestations.md#vulnerability-reports, #provenance): Trivy, Grype,
// SARIF and CycloneDX reports inside cosign's vuln predicate counted by severity; SLSA v1 provenance's source and
// builder, normalised and matched against patterns; the gate's verdicts under warn and enforce.
import t from 'tap';
import { judge } from '../../../plugins/attestations/gate.js';
import { normalizeSource, parseProvenanceRule, provenanceMismatch, readProvenance } from '../../../plugins/attestations/provenance.js';
import { readVulnerabilities } from '../../../plugins/attestations/vulnerabilities.js';
import { nestingDepth } from '../../../plugins/signatures/json-depth.js';
import { slsaPredicate, trivyPredicate } from './harness.js';

const wrap = (result: unknown, uri = 'pkg:github/anchore/grype@0.80.0') => ({ scanner: { uri, version: '', result }, metadata: { scanFinishedOn: '2026-11-02T00:00:00Z' } });

t.test('each report format is counted by severity', async (t) => {
  t.match(readVulnerabilities(trivyPredicate(['CRITICAL', 'HIGH', 'HIGH', 'LOW', 'UNKNOWN']), 'k'), {
    counts: { critical: 1, high: 2, medium: 0, low: 1, unknown: 1 }, scanner: 'trivy 0.58.1', format: 'trivy', scannedAt: '2026-11-01T10:00:00Z',
  });
  t.match(readVulnerabilities(wrap({ matches: [{ vulnerability: { severity: 'Critical' } }, { vulnerability: { severity: 'Negligible' } }, { vulnerability: {} }] }), 'k'), {
    counts: { critical: 1, high: 0, medium: 0, low: 1, unknown: 1 }, scanner: 'grype 0.80.0', format: 'grype',
  });
  const sarif = {
    version: '2.1.0',
    runs: [{
      tool: { driver: { name: 'Trivy', rules: [{ id: 'CVE-1', properties: { 'security-severity': '9.8' } }, { id: 'CVE-2', properties: { 'security-severity': '5.3' } }] } },
      results: [{ ruleId: 'CVE-1', level: 'error' }, { ruleId: 'CVE-2', level: 'warning' }, { ruleId: 'CVE-3', level: 'note' }, { ruleId: 'CVE-4', level: 'error' }],
    }],
  };
  t.match(readVulnerabilities(wrap(sarif, 'pkg:github/aquasecurity/trivy@0.58.1'), 'k'), { counts: { critical: 1, high: 1, medium: 1, low: 1, unknown: 0 }, format: 'sarif' });
  const vex = {
    bomFormat: 'CycloneDX',
    vulnerabilities: [
      { id: 'CVE-1', ratings: [{ severity: 'critical' }] },
      { id: 'CVE-2', ratings: [{ severity: 'critical' }], analysis: { state: 'not_affected' } },
      { id: 'CVE-3', ratings: [{ score: 7.5 }, { severity: 'medium' }] },
    ],
  };
  t.match(readVulnerabilities(wrap(vex), 'k'), { counts: { critical: 1, high: 1, medium: 0, low: 0 }, format: 'cyclonedx' }, 'a VEX statement that the finding does not apply removes it');
  t.match(readVulnerabilities({ scanner: { result: { something: 1 } } }, 'k'), { why: /not a Trivy, Grype, SARIF or CycloneDX report/ });
  t.match(readVulnerabilities(null, 'k'), { why: /no scanner/ });
});

t.test('provenance: source normalised, patterns by segment', async (t) => {
  t.equal(normalizeSource('git+https://github.com/org/app@refs/heads/main'), 'github.com/org/app');
  t.equal(normalizeSource('https://github.com/org/app.git'), 'github.com/org/app');
  t.equal(normalizeSource('ssh://git@gitlab.example.com/group/sub/app.git@v1'), 'git@gitlab.example.com/group/sub/app');
  const facts = readProvenance(slsaPredicate('https://github.com/acme/app', 'https://github.com/actions/runner/github-hosted'), 'k');
  t.match(facts, { source: 'github.com/acme/app', builder: 'https://github.com/actions/runner/github-hosted' });
  if ('why' in facts) return;
  const rule = (raw: string) => parseProvenanceRule(raw)!;
  t.equal(provenanceMismatch(facts, rule('source=github.com/acme/*')), undefined);
  t.equal(provenanceMismatch(facts, rule('source=git+https://github.com/acme/app@refs/tags/v1')), undefined, 'a pattern is normalised as the source is');
  t.match(provenanceMismatch(facts, rule('source=github.com/*')), /does not match github.com\/\*/, '* stays within one segment');
  t.equal(provenanceMismatch(facts, rule('source=github.com/**')), undefined, '** crosses segments');
  t.match(provenanceMismatch(facts, rule('builder=https://github.com/slsa-framework/**')), /^builder https:\/\/github.com\/actions\/runner\/github-hosted does not match/);
  t.equal(provenanceMismatch(facts, rule('source=github.com/acme/app,builder=https://github.com/actions/**')), undefined);
  t.throws(() => parseProvenanceRule('repo=x'), /source=PATTERN/);
  t.throws(() => parseProvenanceRule('source='), /needs a pattern/);
  t.match(readProvenance({ buildDefinition: {}, runDetails: {} }, 'k'), { why: /no builder id/ });
  t.match(readProvenance({ predicate: 1 }, 'k'), { why: /not SLSA v1/ });
});

t.test('the gate: severities refuse in both modes, absence only under enforce', async (t) => {
  const vulnerabilities = { counts: { critical: 0, high: 2, medium: 1, low: 0, unknown: 3 }, scanner: 'trivy 0.58.1', format: 'trivy' as const, scannedAt: '', signer: 'k' };
  t.same(judge({ vulnerabilities, missing: { provenance: 'no provenance attestation' } }, { mode: 'enforce', maxSeverity: 'high' }), {}, 'high is not above high');
  t.same(judge({ vulnerabilities, missing: {} }, { mode: 'warn', maxSeverity: 'medium' }), { code: 'vulnerabilities', refuse: 'attestation vulnerabilities: 2 high above medium (trivy 0.58.1)' }, 'warn refuses a report above the bound too');
  t.same(judge({ missing: { vulnerabilities: 'no vulnerability attestation' } }, { mode: 'warn', maxSeverity: 'low' }), { warn: 'no vulnerability attestation' });
  t.same(judge({ missing: { vulnerabilities: 'no vulnerability attestation' } }, { mode: 'enforce' }), { code: 'missing', refuse: 'attestation missing: no vulnerability attestation' }, 'enforce alone asks for a report');
  const provenance = parseProvenanceRule('source=github.com/acme/app')!;
  t.same(judge({ vulnerabilities, missing: { provenance: 'no provenance attestation' } }, { mode: 'enforce', provenance }), { code: 'missing', refuse: 'attestation missing: no provenance attestation' }, 'provenance alone does not ask for a report');
  t.same(judge({ provenance: { source: 'github.com/x/app', builder: 'b', signer: 'k' }, missing: {} }, { mode: 'warn', provenance }), { code: 'provenance', refuse: 'attestation provenance: source github.com/x/app does not match github.com/acme/app' });
});

t.test('the nesting bound sees through strings', async (t) => {
  t.equal(nestingDepth('{"a":[1,{"b":"[[[[{{{{"}]}', 100), 3);
  t.equal(nestingDepth('"\\"[[["', 100), 0);
  t.equal(nestingDepth('['.repeat(1000), 10), 11, 'stops counting past the limit');
});
