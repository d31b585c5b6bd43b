// Severities as scanners name them, on one scale (docs/attestations.md#vulnerability-reports). `unknown` (a finding
// with no severity) is counted and shown but is above no threshold: a gate cannot rank what the scanner did not.
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export type SeverityCounts = Record<Severity | 'unknown', number>;

/** critical > high > medium > low > unknown. */
export function rank(severity: Severity | 'unknown'): number {
  return severity === 'unknown' ? 0 : SEVERITIES.indexOf(severity) + 1;
}

/** A scanner's word for a severity (Trivy's `CRITICAL`, Grype's `Negligible`, CycloneDX's `info`) on our scale. */
export function severityOf(word: unknown): Severity | 'unknown' {
  if (typeof word !== 'string') return 'unknown';
  switch (word.trim().toLowerCase()) {
    case 'critical':
      return 'critical';
    case 'high':
    case 'important':
      return 'high';
    case 'medium':
    case 'moderate':
      return 'medium';
    case 'low':
    case 'negligible':
    case 'info':
    case 'none':
      return 'low';
    default:
      return 'unknown';
  }
}

/** A CVSS base score (SARIF's `security-severity`) on our scale, as CVSS v3 bands it. */
export function severityOfScore(score: unknown): Severity | 'unknown' {
  const n = typeof score === 'number' ? score : typeof score === 'string' ? Number.parseFloat(score) : Number.NaN;
  if (!Number.isFinite(n) || n < 0 || n > 10) return 'unknown';
  if (n >= 9) return 'critical';
  if (n >= 7) return 'high';
  if (n >= 4) return 'medium';
  return 'low';
}

export function emptyCounts(): SeverityCounts {
  return { critical: 0, high: 0, medium: 0, low: 0, unknown: 0 };
}

/** The highest severity counted, or undefined when nothing ranked was found. */
export function highest(counts: SeverityCounts): Severity | undefined {
  for (const s of [...SEVERITIES].reverse()) if (counts[s] > 0) return s;
  return undefined;
}
