// The attestations finding (docs/attestations.md#what-is-shown): the verified facts of the candidate in hand —
// counts by severity, scanner and scan time, source and builder — or why they are absent, written on the stale
// answer by the `review` tap so that the check record, /details, notifications, metrics, MQTT and the dashboard
// show it by its key and one line (docs/plugins.md#findings), with nothing of this plugin known to them.
import { defineFinding, withFinding, type RunContext, type Staleness, type Target } from '../../core/index.js';
import type { AttestationFacts, FactsCache } from './facts.js';
import { factsFor, judge, type GateRules } from './gate.js';
import type { SeverityCounts } from './severity.js';

export interface AttestationFinding {
  readonly digest: string;
  readonly vulnerabilities?: { readonly counts: SeverityCounts; readonly scanner: string; readonly scanned_at: string };
  readonly provenance?: { readonly source: string; readonly builder: string };
  /** Why a kind is absent, or the refusal the gate will give, or a read error. */
  readonly missing?: { readonly vulnerabilities?: string; readonly provenance?: string };
  readonly verdict: 'passes' | 'refused' | 'warn' | 'error';
  readonly reason?: string;
}

function countsLine(c: SeverityCounts): string {
  const parts = (['critical', 'high', 'medium', 'low', 'unknown'] as const).filter((s) => c[s] > 0).map((s) => `${c[s]} ${s}`);
  return parts.length > 0 ? parts.join(', ') : 'no findings';
}

export const ATTESTATIONS_FINDING = defineFinding<AttestationFinding>('attestations', {
  summary(f) {
    const facts: string[] = [];
    if (f.vulnerabilities) facts.push(`${countsLine(f.vulnerabilities.counts)} (${f.vulnerabilities.scanner}${f.vulnerabilities.scanned_at ? `, ${f.vulnerabilities.scanned_at}` : ''})`);
    if (f.provenance) facts.push(`built from ${f.provenance.source} by ${f.provenance.builder}`);
    const head = f.verdict === 'passes' ? 'verified' : f.verdict === 'warn' ? 'warn' : f.verdict === 'refused' ? 'refused' : 'error';
    const shown = facts.length > 0 ? facts.join('; ') : 'no verified attestation';
    // The reason comes first: the line is cut at 200 characters (docs/plugins.md#findings), and a real builder id
    // alone is over 100, so a reason after the facts would be lost from the record just when it is needed.
    return f.reason ? `${head}: ${f.reason} — ${shown}` : `${head}: ${shown}`;
  },
  schema: { type: 'object', required: ['digest', 'verdict'] },
});

export function findingOf(digest: string, facts: AttestationFacts, rules: GateRules): AttestationFinding {
  const verdict = judge(facts, rules);
  return {
    digest,
    ...(facts.vulnerabilities ? { vulnerabilities: { counts: facts.vulnerabilities.counts, scanner: facts.vulnerabilities.scanner, scanned_at: facts.vulnerabilities.scannedAt } } : {}),
    ...(facts.provenance ? { provenance: { source: facts.provenance.source, builder: facts.provenance.builder } } : {}),
    ...(Object.keys(facts.missing).length > 0 ? { missing: facts.missing } : {}),
    verdict: verdict.refuse ? 'refused' : verdict.warn ? 'warn' : 'passes',
    ...(verdict.refuse ? { reason: verdict.refuse } : verdict.warn ? { reason: verdict.warn } : {}),
  };
}

/** The `review` tap: a stale answer with a registry digest gets the facts of that digest. */
export async function reviewAttestations(cache: FactsCache, rules: GateRules, staleness: Staleness, target: Target, ctx: RunContext): Promise<Staleness> {
  const digest = staleness.latestDigest;
  if (!staleness.stale || !digest) return staleness;
  const facts = await factsFor(cache, target, digest, ctx);
  const finding: AttestationFinding = 'error' in facts ? { digest, verdict: 'error', reason: facts.error } : findingOf(digest, facts, rules);
  return withFinding(staleness, ATTESTATIONS_FINDING, finding);
}
