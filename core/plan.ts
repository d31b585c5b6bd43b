// One exact plan (docs/plans.md): what an untargeted update run would do now, decided by the same stages —
// discovery, selection, staleness, review, every gate with its lower candidates, dependency order — and
// kept instead of applied. Applying it (plan-apply.ts) replaces exactly these containers with exactly these
// digests, whatever the registry says by then; nothing is decided twice.
import { discoverAndCheck } from './check-run.js';
import { directDependents, reachableDependents, targetKey } from './dependency-order.js';
import { readFinding } from './findings.js';
import { tryParseImageReference } from './image-reference.js';
import { FINDINGS } from './known-findings.js';
import type { RunContext, RunFilters, Staleness, Target, UpdateReport } from './types.js';
import { plansInOrder, triage, type UpdateRunDeps } from './update-run.js';

/** One container a plan replaces, with the exact candidate it replaces it with. */
export interface PlanStep {
  readonly container: string;
  /** The engine, for a target that names one (docs/hosts.md). */
  readonly host?: string;
  /** What the container runs now: its image reference and registry digest (else local image id). */
  readonly from: { readonly image: string; readonly digest: string };
  /** The candidate: the reference the new container runs, the digest pulled, its tag and version when known. */
  readonly to: { readonly image: string; readonly digest?: string; readonly tag?: string; readonly version?: string };
  /** 1 for containers that depend on no other step; a step runs after every step of a lower wave it depends on. */
  readonly wave: number;
  /** Containers recreated on their current image because they depend on this one (Watchtower's linked restarts). */
  readonly restarts: readonly string[];
}

export interface PlanSkip {
  readonly container: string;
  readonly host?: string;
  readonly reason: string;
}

export interface Plan {
  readonly planId: string;
  /** Whether the request that decided it named containers, images or hosts. */
  readonly targeted: boolean;
  readonly createdAt: Date;
  /** After this, applying the plan answers TW_ERR_PLAN_NOT_FOUND (`--plan-ttl`). */
  readonly expiresAt: Date;
  /** In the order they are applied: by wave, dependencies first. */
  readonly steps: readonly PlanStep[];
  /** Stale containers the run would not update now (a gate, a hold, a window, a failed check…), with why. */
  readonly skipped: readonly PlanSkip[];
}

export type PlanStepOutcome = 'updated' | 'skipped' | 'failed' | 'rolled_back';

/** The update run that applied a plan: its report, and what became of each step. */
export interface AppliedPlan extends UpdateReport {
  readonly planId: string;
  readonly steps: readonly (PlanStep & { readonly outcome: PlanStepOutcome; readonly reason?: string })[];
}

/** A target of a decided plan, as it was when the plan was decided, and what the plan does to it. */
export interface PlannedEntry {
  readonly target: Target;
  /** The candidate that passed every gate (reviewed), without its way to lower candidates. */
  readonly staleness: Staleness;
  readonly restartOnly: boolean;
  /** Index into `Plan.steps`; undefined for a linked restart. */
  readonly step?: number;
}

/** What the core keeps of a plan: what it shows, the request's filters, and every entry in apply order. */
export interface DecidedPlan {
  readonly plan: Plan;
  readonly filters: RunFilters;
  readonly entries: readonly PlannedEntry[];
}

/** Where a plan finds its target again: the runtime and the run's key (name, engine, kind). */
export function identityOf(target: Target): string {
  return `${target.runtime}\u0000${targetKey(target)}`;
}

/** A kept candidate holds no closure: it is applied as decided, never walked further. */
function settled(staleness: Staleness): Staleness {
  if (staleness.nextCandidate === undefined) return staleness;
  const copy: { -readonly [K in keyof Staleness]: Staleness[K] } = { ...staleness };
  delete copy.nextCandidate;
  return copy;
}

/** `repo` of `repo:tag@digest` as written (the user's spelling, not the normalised name). */
function repositoryAsWritten(image: string): string {
  const at = image.indexOf('@');
  const name = at === -1 ? image : image.slice(0, at);
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(0, colon) : name;
}

/** The reference the new container runs: the new tag under a tag policy, else the container's own. */
function nextImage(target: Target, staleness: Staleness): string {
  if (staleness.targetImage) return staleness.targetImage;
  if (!staleness.latestTag || !tryParseImageReference(target.image)) return target.image;
  return `${repositoryAsWritten(target.image)}:${staleness.latestTag}`;
}

function stepOf(target: Target, staleness: Staleness, wave: number, restarts: string[]): PlanStep {
  const digest = staleness.latestDigest ?? staleness.targetImageId ?? staleness.latestImageId;
  const tag = staleness.latestTag ?? readFinding(staleness, FINDINGS.tags)?.currentTag ?? tryParseImageReference(target.image)?.tag;
  return {
    container: target.name,
    ...(target.host ? { host: target.host } : {}),
    from: { image: target.image, digest: staleness.currentDigest ?? target.imageId },
    to: {
      image: nextImage(target, staleness),
      ...(digest ? { digest } : {}),
      ...(tag ? { tag } : {}),
      ...(readFinding(staleness, FINDINGS.version) ? { version: readFinding(staleness, FINDINGS.version) as string } : {}),
    },
    wave,
    restarts,
  };
}

function skipOf(target: Target, reason: string): PlanSkip {
  return { container: target.name, ...(target.host ? { host: target.host } : {}), reason };
}

/**
 * Decides a plan: the update run's stages without applying anything. Runs as an update (`ctx.kind` is
 * `update`), so every gate judges as it would in the run; only the skip announcements are left out.
 */
export async function decidePlan(
  deps: UpdateRunDeps,
  ctx: RunContext,
  expiresAt: Date,
): Promise<DecidedPlan> {
  const { results: checked } = await discoverAndCheck(deps.hooks, deps.split, ctx, deps.concurrency);
  ctx.signal.throwIfAborted();
  const { candidates, skipped, failed } = await triage(deps, checked, ctx, true);
  const { plans, cyclic } = plansInOrder(candidates);

  // A wave is one more than the highest wave among what a target depends on in this plan.
  const ordered = plans.map((p) => p.target);
  const edges = directDependents(ordered);
  const wave = new Map<string, number>(ordered.map((t) => [targetKey(t), 1]));
  for (const target of ordered) {
    const key = targetKey(target);
    const own = wave.get(key) as number;
    for (const dependent of edges.get(key) ?? []) wave.set(dependent, Math.max(wave.get(dependent) as number, own + 1));
  }
  const restartOnly = new Set(plans.filter((p) => p.restartOnly).map((p) => targetKey(p.target)));
  const nameOf = new Map(ordered.map((t) => [targetKey(t), t.name]));
  // Stable: within a wave, the dependency order the run would have used.
  const inOrder = plans.map((p, index) => ({ p, index, wave: wave.get(targetKey(p.target)) as number }));
  inOrder.sort((a, b) => a.wave - b.wave || a.index - b.index);

  const steps: PlanStep[] = [];
  const entries: PlannedEntry[] = inOrder.map(({ p, wave: w }) => {
    const staleness = settled(p.staleness);
    if (p.restartOnly) return { target: p.target, staleness, restartOnly: true };
    const restarts = [...reachableDependents(edges, [targetKey(p.target)])]
      .filter((key) => restartOnly.has(key))
      .map((key) => nameOf.get(key) as string);
    steps.push(stepOf(p.target, staleness, w, restarts));
    return { target: p.target, staleness, restartOnly: false, step: steps.length - 1 };
  });
  const plan: Plan = {
    // Its own id, never the run's: a caller may name the deciding run (an approval's), not the plan.
    planId: process.getBuiltinModule('node:crypto').randomUUID(),
    targeted: ctx.targeted,
    createdAt: ctx.startedAt,
    expiresAt,
    steps,
    skipped: [
      ...skipped.map((s) => skipOf(s.target, s.reason)),
      ...cyclic.map((t) => skipOf(t, 'dependency cycle')),
      ...failed.map((f) => skipOf(f.target, `check failed: ${f.error ?? 'unknown error'}`)),
    ],
  };
  ctx.logger.info({ plan_id: plan.planId, steps: steps.length, skipped: plan.skipped.length }, 'plan decided');
  return { plan, filters: ctx.filters, entries };
}
