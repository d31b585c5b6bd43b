// Reading cosign's vulnerability predicate (`https://cosign.sigstore.dev/attestation/vuln/v1`,
// docs/attestations.md#vulnerability-reports): `scanner.result` holds the scanner's own report, read here in the
// formats scanners write — Trivy's JSON (`Results[].Vulnerabilities[].Severity`), Grype's JSON
// (`matches[].vulnerability.severity`), SARIF 2.1 (`runs[].results[]`, ranked by the rule's `security-severity`,
// else the result's level) and CycloneDX (`vulnerabilities[].ratings[]`, less those a VEX analysis says do not
// apply). Every field is untrusted: a wrong type is "not a report", and counting stops at a bound.
import { emptyCounts, rank, severityOf, severityOfScore, type Severity, type SeverityCounts } from './severity.js';

export const VULN_PREDICATE = 'https://cosign.sigstore.dev/attestation/vuln/v1';
/** Findings counted per report: past it the report counts as unreadable (no real scan of one image has this many). */
export const MAX_FINDINGS = 200_000;

export interface VulnerabilityFacts {
  readonly counts: SeverityCounts;
  /** `trivy 0.58.1`, from the predicate's scanner uri and version. */
  readonly scanner: string;
  readonly format: 'trivy' | 'grype' | 'sarif' | 'cyclonedx';
  /** When the scan finished (the predicate's metadata), as given; empty when it says nothing. */
  readonly scannedAt: string;
  readonly signer: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arrayOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown, max = 200): string => (typeof v === 'string' ? v.slice(0, max) : '');

class Counter {
  readonly counts = emptyCounts();
  #n = 0;
  add(severity: Severity | 'unknown'): void {
    if (++this.#n > MAX_FINDINGS) throw new RangeError(`more than ${MAX_FINDINGS} findings`);
    this.counts[severity]++;
  }
}

function trivy(result: Json, counter: Counter): void {
  for (const target of arrayOf(result['Results'])) {
    if (!isObject(target)) continue;
    for (const v of arrayOf(target['Vulnerabilities'])) if (isObject(v)) counter.add(severityOf(v['Severity']));
  }
}

function grype(result: Json, counter: Counter): void {
  for (const m of arrayOf(result['matches'])) {
    if (isObject(m) && isObject(m['vulnerability'])) counter.add(severityOf(m['vulnerability']['severity']));
  }
}

function sarif(result: Json, counter: Counter): void {
  for (const run of arrayOf(result['runs'])) {
    if (!isObject(run)) continue;
    const rules = new Map<string, unknown>();
    const driver = isObject(run['tool']) && isObject(run['tool']['driver']) ? run['tool']['driver'] : {};
    for (const rule of arrayOf(driver['rules'])) {
      if (isObject(rule) && typeof rule['id'] === 'string' && isObject(rule['properties'])) rules.set(rule['id'], rule['properties']['security-severity']);
    }
    for (const r of arrayOf(run['results'])) {
      if (!isObject(r)) continue;
      const own = isObject(r['properties']) ? r['properties']['security-severity'] : undefined;
      const score = severityOfScore(own ?? (typeof r['ruleId'] === 'string' ? rules.get(r['ruleId']) : undefined));
      counter.add(score !== 'unknown' ? score : levelSeverity(r['level']));
    }
  }
}

/** SARIF's level when no score is given: error → high, warning → medium, note → low. */
function levelSeverity(level: unknown): Severity | 'unknown' {
  return level === 'error' ? 'high' : level === 'warning' ? 'medium' : level === 'note' ? 'low' : 'unknown';
}

/** VEX states that say the finding does not apply to this image. */
const NOT_APPLICABLE = new Set(['not_affected', 'false_positive', 'resolved', 'resolved_with_pedigree']);

function cyclonedx(result: Json, counter: Counter): void {
  for (const v of arrayOf(result['vulnerabilities'])) {
    if (!isObject(v)) continue;
    if (isObject(v['analysis']) && NOT_APPLICABLE.has(text(v['analysis']['state']))) continue;
    let worst: Severity | 'unknown' = 'unknown';
    for (const rating of arrayOf(v['ratings']).slice(0, 32)) {
      if (!isObject(rating)) continue;
      const named = severityOf(rating['severity']);
      const s = named !== 'unknown' ? named : severityOfScore(rating['score']);
      if (rank(s) > rank(worst)) worst = s;
    }
    counter.add(worst);
  }
}

function formatOf(result: Json): VulnerabilityFacts['format'] | undefined {
  if (Array.isArray(result['Results']) || typeof result['SchemaVersion'] === 'number') return 'trivy';
  if (Array.isArray(result['matches'])) return 'grype';
  if (Array.isArray(result['runs'])) return 'sarif';
  if (result['bomFormat'] === 'CycloneDX' || Array.isArray(result['vulnerabilities'])) return 'cyclonedx';
  return undefined;
}

/** The facts of one verified vulnerability predicate, or why it is not a report this reads. */
export function readVulnerabilities(predicate: unknown, signer: string): VulnerabilityFacts | { why: string } {
  if (!isObject(predicate) || !isObject(predicate['scanner'])) return { why: 'the vulnerability predicate has no scanner' };
  const scanner = predicate['scanner'];
  const result = scanner['result'];
  if (!isObject(result)) return { why: 'the vulnerability predicate has no scanner result' };
  const format = formatOf(result);
  if (!format) return { why: 'the scanner result is not a Trivy, Grype, SARIF or CycloneDX report' };
  const counter = new Counter();
  try {
    ({ trivy, grype, sarif, cyclonedx })[format](result, counter);
  } catch (err) {
    return { why: `the ${format} report is over its bound: ${err instanceof Error ? err.message : String(err)}` };
  }
  const uri = text(scanner['uri']);
  const name = /(?:^pkg:[^/]+\/[^/]+\/|\/)([A-Za-z0-9._-]+?)(?:@|$)/.exec(uri)?.[1] ?? (uri || format);
  const version = text(scanner['version'], 64) || /@([^@\s]+)$/.exec(uri)?.[1] || '';
  const metadata = isObject(predicate['metadata']) ? predicate['metadata'] : {};
  return {
    counts: counter.counts,
    scanner: `${name}${version ? ` ${version}` : ''}`,
    format,
    scannedAt: text(metadata['scanFinishedOn'], 64) || text(metadata['scanStartedOn'], 64),
    signer,
  };
}
