// Candidates through gates (docs/plugins.md#candidates-through-gates). A source that knows several candidates
// for one target (the registry under a tag policy, docs/tags.md) answers with the highest and a way to the next
// lower one (`Staleness.nextCandidate`). The gate step judges the candidate in hand with every gate (cooldown,
// signatures, holds, any plugin's); when one refuses it, the step takes the next, at most MAX_GATE_CANDIDATES
// in all. No gate picks a fallback of its own: the candidate that passes becomes the plan's staleness, exactly
// what the runtime applies, and a refusal of them all says how many were tried and why each was refused.
import { errorMessage } from './errors.js';
import { readFinding } from './findings.js';
import type { Hooks } from './hooks.js';
import { FINDINGS } from './known-findings.js';
import type { RunContext, Skip, Staleness, Target } from './types.js';

/** Candidates judged at most per target and run: each may cost registry requests (a manifest, its signatures). */
export const MAX_GATE_CANDIDATES = 5;

export interface GateDecision {
  /** The candidate that passed every gate (with `candidatesTried` when it was not the first). */
  readonly passed?: Staleness;
  /** Why none passed: the only refusal as the gate gave it, or all of them in one reason. */
  readonly skip?: Skip;
  /** Candidates judged. */
  readonly tried: number;
  /** Every refusal on the way, in the order judged (the metrics count them: docs/interface.md#metrics). */
  readonly refused: readonly Skip[];
}

interface Refusal {
  readonly candidate: string;
  readonly skip: Skip;
}

/** How a candidate is named in a reason: its tag, else its digest. */
function candidateName(staleness: Staleness): string {
  if (staleness.latestTag) return staleness.latestTag;
  const digest = staleness.latestDigest ?? staleness.latestImageId;
  const short = digest ? digest.replace(/^sha256:/, '').slice(0, 12) : 'the newer image';
  const currentTag = readFinding(staleness, FINDINGS.tags)?.currentTag;
  return currentTag ? `${currentTag}@${short}` : short;
}

/** One skip for several refusals: the first's reason first (its prefix, `signature `, `cooldown: `, stays), then the rest. */
function refusedAll(refusals: readonly Refusal[]): Skip {
  const [first, ...rest] = refusals as [Refusal, ...Refusal[]];
  if (rest.length === 0) return first.skip;
  const others = rest.map((r) => `${r.candidate}: ${r.skip.reason}`).join('; ');
  const untils = refusals.map((r) => r.skip.until?.getTime()).filter((t): t is number => t !== undefined);
  return {
    reason: `${first.skip.reason} (${first.candidate}); ${refusals.length} candidates tried, none passed: ${others}`,
    ...(first.skip.by ? { by: first.skip.by } : {}),
    ...(first.skip.code ? { code: first.skip.code } : {}),
    // Eligible again as soon as the first of them is (a cooldown that ends), when every refusal says when.
    ...(untils.length === refusals.length ? { until: new Date(Math.min(...untils)) } : {}),
  };
}

/**
 * Walks the candidates of one stale target through the gates. `review` is the core's review step (the
 * signature verdict, notes), applied to each lower candidate as to the first.
 */
export async function gateCandidates(
  hooks: Hooks,
  target: Target,
  first: Staleness,
  ctx: RunContext,
  review: (staleness: Staleness) => Promise<Staleness>,
): Promise<GateDecision> {
  const refusals: Refusal[] = [];
  let candidate: Staleness | undefined = first;
  while (candidate) {
    const skip = await hooks.gate.promise(target, candidate, ctx);
    const tried = refusals.length + 1;
    const refused = refusals.map((r) => r.skip);
    if (!skip) return { passed: tried > 1 ? { ...candidate, candidatesTried: tried } : candidate, tried, refused };
    // A report-only gate (monitor-only) or a closed window holds back every candidate alike: no other is asked for.
    if (skip.reportOnly || skip.everyCandidate) return { skip, tried, refused };
    refusals.push({ candidate: candidateName(candidate), skip });
    if (refusals.length >= MAX_GATE_CANDIDATES) break;
    candidate = await nextOf(candidate, target, ctx, review);
  }
  if (refusals.length > 1) {
    ctx.logger.info({ container: target.name, candidates: refusals.map((r) => r.candidate), tried: refusals.length }, 'no update candidate passed the gates');
  }
  return { skip: refusedAll(refusals), tried: refusals.length, refused: refusals.map((r) => r.skip) };
}

async function nextOf(
  candidate: Staleness,
  target: Target,
  ctx: RunContext,
  review: (staleness: Staleness) => Promise<Staleness>,
): Promise<Staleness | undefined> {
  if (!candidate.nextCandidate) return undefined;
  ctx.signal.throwIfAborted();
  let next: Staleness | undefined;
  try {
    next = await candidate.nextCandidate();
  } catch (err) {
    // The lower candidates could not be read (a registry error): the refusals so far stand.
    ctx.logger.warn({ container: target.name, err: errorMessage(err) }, 'the next update candidate could not be read');
    return undefined;
  }
  if (!next || !next.stale || next.error !== undefined || next.notApplicable !== undefined) return undefined;
  return review(next);
}
