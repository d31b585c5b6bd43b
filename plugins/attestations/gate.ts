// Where attestations meet runs (docs/attestations.md#the-gate): the gate judges the candidate in hand — the
// exact digest the runtime would pull — and the core walks to the next candidate when it refuses (candidates
// through gates, docs/plugins.md). `--max-severity` and `--require-provenance` refuse under warn and enforce
// alike; the mode only decides what happens to a candidate without the verified attestation a rule needs.
import { errorMessage, type RunContext, type Skip, type Staleness, type Target } from '../../core/index.js';
import type { AttestationFacts, FactsCache } from './facts.js';
import type { Mode } from './options.js';
import { provenanceMismatch, type ProvenanceRule } from './provenance.js';
import { highest, rank, type Severity } from './severity.js';

export const BY = 'attestations';

/** The refusal's word for the metrics' reason label (docs/attestations.md#what-is-shown). */
export type RefusalCode = 'vulnerabilities' | 'missing' | 'provenance' | 'error';

export interface GateRules {
  readonly mode: Exclude<Mode, 'off'>;
  readonly maxSeverity?: Severity;
  readonly provenance?: ProvenanceRule;
}

/** What the rules need: with neither rule set, enforce asks for a verified vulnerability report. */
export function needsOf(rules: Pick<GateRules, 'maxSeverity' | 'provenance'>): { vulnerabilities: boolean; provenance: boolean } {
  return { vulnerabilities: rules.maxSeverity !== undefined || rules.provenance === undefined, provenance: rules.provenance !== undefined };
}

/** The refusal the facts earn under the rules, or undefined when the candidate passes. */
export function judge(facts: AttestationFacts, rules: GateRules): { refuse?: string; code?: RefusalCode; warn?: string } {
  const needs = needsOf(rules);
  const warnings: string[] = [];
  if (needs.vulnerabilities) {
    const v = facts.vulnerabilities;
    if (v && rules.maxSeverity) {
      const top = highest(v.counts);
      if (top && rank(top) > rank(rules.maxSeverity)) {
        const above = (['critical', 'high', 'medium', 'low'] as const).filter((s) => rank(s) > rank(rules.maxSeverity as Severity) && v.counts[s] > 0);
        return { code: 'vulnerabilities', refuse: `attestation vulnerabilities: ${above.map((s) => `${v.counts[s]} ${s}`).join(', ')} above ${rules.maxSeverity} (${v.scanner})` };
      }
    } else if (!v) {
      if (rules.mode === 'enforce') return { code: 'missing', refuse: `attestation missing: ${facts.missing.vulnerabilities ?? 'no vulnerability attestation'}` };
      warnings.push(facts.missing.vulnerabilities ?? 'no vulnerability attestation');
    }
  }
  if (needs.provenance && rules.provenance) {
    const p = facts.provenance;
    if (p) {
      const mismatch = provenanceMismatch(p, rules.provenance);
      if (mismatch) return { code: 'provenance', refuse: `attestation provenance: ${mismatch}` };
    } else {
      if (rules.mode === 'enforce') return { code: 'missing', refuse: `attestation missing: ${facts.missing.provenance ?? 'no provenance attestation'}` };
      warnings.push(facts.missing.provenance ?? 'no provenance attestation');
    }
  }
  return warnings.length > 0 ? { warn: warnings.join('; ') } : {};
}

export async function factsFor(cache: FactsCache, target: Target, digest: string, ctx: RunContext): Promise<AttestationFacts | { error: string }> {
  try {
    return await cache.facts(target.image, digest, ctx.signal);
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    return { error: errorMessage(err) };
  }
}

/** The gate tap: judges the candidate's `latestDigest`. */
export async function attestationGate(cache: FactsCache, rules: GateRules, target: Target, staleness: Staleness, ctx: RunContext): Promise<Skip | undefined> {
  if (!staleness.stale) return undefined;
  const digest = staleness.latestDigest;
  if (!digest) {
    if (rules.mode === 'warn') return undefined;
    return { reason: 'attestation error: no registry digest to verify (only registry images carry attestations)', by: BY, code: 'error' };
  }
  const facts = await factsFor(cache, target, digest, ctx);
  if ('error' in facts) {
    if (rules.mode === 'warn') {
      ctx.logger.warn({ container: target.name, digest, reason: facts.error }, 'updating an image whose attestations could not be read (warn)');
      return undefined;
    }
    return { reason: `attestation error: ${facts.error}`, by: BY, code: 'error' };
  }
  const verdict = judge(facts, rules);
  if (verdict.refuse) {
    ctx.logger.warn({ container: target.name, digest, reason: verdict.refuse }, 'candidate refused by its attestations');
    return { reason: verdict.refuse, by: BY, ...(verdict.code ? { code: verdict.code } : {}) };
  }
  if (verdict.warn) ctx.logger.warn({ container: target.name, digest, reason: verdict.warn }, 'updating an image without the attestations asked for (warn)');
  return undefined;
}
