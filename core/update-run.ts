// The update run: check, gate, plan in dependency order, apply, clean up. Targets that share a
// dependency chain are applied one at a time in that order; with `updateConcurrency` > 1, up to that
// many unrelated chains are worked on side by side (docs/performance.md#parallel-updates).
// Cancellation (timeout, client gone) is honoured only between targets: a replacement that has
// started always finishes or rolls back, so no target is ever left stopped by a cancelled run.
import { mapBounded } from './bounded.js';
import { gateCandidates } from './candidates.js';
import { discoverAndCheck, review } from './check-run.js';
import {
  dependencyGroups,
  directDependents,
  orderByDependencies,
  reachableDependents,
  targetKey,
  transitiveDependents,
} from './dependency-order.js';
import { errorMessage, errors } from './errors.js';
import { actorField, targetPlacement, type EventPayloads, type EventType, type RollbackField, type SignatureField } from './events.js';
import { readFinding, type Findings } from './findings.js';
import type { Hooks } from './hooks.js';
import { FINDINGS } from './known-findings.js';
import type { WatchSplit } from './watch-split.js';
import type {
  ApplyResult,
  CheckResult,
  RunContext,
  Skip,
  Staleness,
  Target,
  UpdatePlan,
  UpdateReport,
  UpdateSummary,
} from './types.js';

export interface UpdateRunDeps {
  readonly hooks: Hooks;
  readonly split: WatchSplit;
  readonly concurrency: number;
  /** Dependency chains replaced at once (default 1: one target at a time, Watchtower's behaviour). */
  readonly updateConcurrency?: number;
  emit<K extends EventType>(type: K, data: EventPayloads[K], findings?: Findings): void;
}

export interface Candidate {
  readonly target: Target;
  readonly staleness: Staleness;
  readonly restartOnly: boolean;
}

export interface Triage {
  readonly candidates: Candidate[];
  readonly skipped: { target: Target; reason: string; candidatesTried?: number }[];
  readonly failed: ApplyResult[];
  /** Per target key, the lower candidate that passed the gates in place of the check's own answer. */
  readonly chosen: Map<string, Staleness>;
}

async function gateOf(deps: UpdateRunDeps, check: CheckResult, ctx: RunContext): Promise<Skip | undefined> {
  return deps.hooks.gate.promise(check.target, check.staleness, ctx);
}

/** A deferred target says why, in the log and as an event: a hold or a gate is never silent (docs/state.md#holds). */
function reportSkip(deps: UpdateRunDeps, target: Target, skip: Skip, ctx: RunContext, findings?: Findings): void {
  const by = { ...(skip.by === undefined ? {} : { by: skip.by }), ...(skip.code === undefined ? {} : { code: skip.code }) };
  ctx.logger.info({ container: target.name, reason: skip.reason, ...by }, 'update skipped');
  deps.emit('update_skipped', {
    run_id: ctx.runId,
    container: target.name,
    image: target.image,
    reason: skip.reason,
    ...by,
    trigger: ctx.trigger,
      ...actorField(ctx),
    ...targetPlacement(target),
  }, findings);
}

/**
 * Sorts checked targets into: to update, deferred or report-only, and failed checks. A plan's decision
 * (plan.ts) sorts alike but `quiet`: it applies nothing, so it announces no skipped update.
 */
export async function triage(deps: UpdateRunDeps, checks: CheckResult[], ctx: RunContext, quiet = false): Promise<Triage> {
  const result: Triage = { candidates: [], skipped: [], failed: [], chosen: new Map() };
  const stale = new Set<string>();
  const byKey = new Map(checks.map((c) => [targetKey(c.target), c]));
  for (const check of checks) {
    const { target, staleness } = check;
    if (staleness.error) {
      // A host that is not there (an offline agent, docs/fleet.md#offline-is-visible) is skipped with the
      // source's reason, not failed: its record keeps the error, and it is never reported up to date.
      if (staleness.notApplicable !== undefined) result.skipped.push({ target, reason: staleness.notApplicable });
      else result.failed.push({ target, outcome: 'failed', error: staleness.error, rolledBack: false });
      continue;
    }
    if (!staleness.stale) continue;
    if (staleness.notApplicable !== undefined) {
      result.skipped.push({ target, reason: staleness.notApplicable });
      continue;
    }
    let passed: Staleness;
    try {
      // Every gate judges the candidate in hand; a refused one gives way to the next lower (candidates.ts).
      const decision = await gateCandidates(deps.hooks, target, staleness, ctx, (next) => review(deps.hooks, next, target, ctx));
      const refusals = decision.refused.filter((s) => !s.reportOnly && !s.everyCandidate).map((s) => ({ ...(s.by ? { by: s.by } : {}), ...(s.code ? { code: s.code } : {}) }));
      if (refusals.length > 0) deps.emit('candidates_refused', { run_id: ctx.runId, container: target.name, refusals });
      if (!decision.passed) {
        const skip = decision.skip as Skip;
        const tried = decision.tried > 1 ? { candidatesTried: decision.tried } : {};
        if (!skip.reportOnly) {
          result.skipped.push({ target, reason: skip.reason, ...tried });
          if (!quiet) reportSkip(deps, target, skip, ctx, staleness.findings);
        }
        continue;
      }
      passed = decision.passed;
    } catch (err) {
      result.failed.push({ target, outcome: 'failed', error: errorMessage(err), rolledBack: false });
      continue;
    }
    stale.add(targetKey(target));
    if (passed !== staleness) result.chosen.set(targetKey(target), passed);
    result.candidates.push({ target, staleness: passed, restartOnly: false });
  }
  // Targets depending on a replaced one are recreated too (Watchtower's linked restarts), unless a
  // gate (monitor-only) holds them back. The gates judge a restart on the current image, not the dependent's
  // own update: a dependent whose own update is deferred (a closed window, a pending approval, a cooldown) still
  // moves with its parent (docs/policies.md#windows-and-dependencies).
  for (const key of transitiveDependents(checks.map((c) => c.target), stale)) {
    const check = byKey.get(key) as CheckResult;
    if (check.staleness.error) continue;
    try {
      const skip = await gateOf(deps, { ...check, staleness: { ...check.staleness, stale: false } }, ctx);
      if (skip) continue;
    } catch {
      continue;
    }
    result.candidates.push({ target: check.target, staleness: check.staleness, restartOnly: true });
  }
  return result;
}

export function plansInOrder(candidates: Candidate[]): { plans: UpdatePlan[]; cyclic: Target[] } {
  const byKey = new Map(candidates.map((c) => [targetKey(c.target), c]));
  const { ordered, cyclic } = orderByDependencies(candidates.map((c) => c.target));
  const position = new Map(ordered.map((t, i) => [targetKey(t), i]));
  const edges = directDependents(ordered);
  const plans = ordered.map((target) => {
    const key = targetKey(target);
    const candidate = byKey.get(key) as Candidate;
    // Each plan costs its own dependents, not the whole run: a fleet of independent targets is linear.
    const dependents = [...reachableDependents(edges, [key])]
      .filter((dependent) => dependent !== key)
      .map((dependent) => position.get(dependent) as number)
      .sort((a, b) => b - a)
      .map((i) => ordered[i] as Target);
    return { target, staleness: candidate.staleness, restartOnly: candidate.restartOnly, dependents };
  });
  return { plans, cyclic };
}

/** The plans as chains that share no dependency, each in plan order, chains in the order of their first plan. */
function chainsOf(plans: readonly UpdatePlan[], targets: readonly Target[]): { plan: UpdatePlan; index: number }[][] {
  const group = dependencyGroups(targets);
  const chains = new Map<string, { plan: UpdatePlan; index: number }[]>();
  plans.forEach((plan, index) => {
    const key = group.get(targetKey(plan.target)) ?? targetKey(plan.target);
    const chain = chains.get(key);
    if (chain) chain.push({ plan, index });
    else chains.set(key, [{ plan, index }]);
  });
  return [...chains.values()];
}

/** Applies the plans, chains side by side; appends each result to `results` in plan order, even when cancelled. */
export async function applyAll(
  deps: UpdateRunDeps,
  plans: readonly UpdatePlan[],
  targets: readonly Target[],
  ctx: RunContext,
  out: ApplyResult[],
): Promise<void> {
  const limit = Math.max(1, deps.updateConcurrency ?? 1);
  const results = new Array<ApplyResult | undefined>(plans.length);
  const chains = limit === 1 ? [plans.map((plan, index) => ({ plan, index }))] : chainsOf(plans, targets);
  await mapBounded(chains, limit, async (chain) => {
    for (const { plan, index } of chain) {
      // Between targets only: never abandon a replacement halfway, in this chain or any other.
      if (ctx.signal.aborted) return;
      results[index] = await applyPlan(deps, plan, ctx);
    }
  });
  // Plan order, whatever order the chains finished in; a cancelled run reports what it applied.
  for (const result of results) if (result) out.push(result);
  // Only once every chain has settled: no replacement is left running behind a failed run.
  ctx.signal.throwIfAborted();
}

/** A rollback on demand: the plan runs a local previous image (docs/state.md#rollback-on-demand). */
function isRollbackPlan(plan: Pick<UpdatePlan, 'restartOnly' | 'staleness'>): boolean {
  return !plan.restartOnly && plan.staleness.targetImageId !== undefined;
}

function rollbackOf(plan: UpdatePlan): RollbackField {
  return isRollbackPlan(plan) ? { rollback: true } : {};
}

/** The signature verdict on what a plan applies, for its events (docs/signatures.md). */
function signatureOf(plan: UpdatePlan): SignatureField {
  const verdict = plan.restartOnly ? undefined : readFinding(plan.staleness, FINDINGS.signature)?.verdict;
  return verdict ? { signature: verdict } : {};
}

async function applyPlan(deps: UpdateRunDeps, plan: UpdatePlan, ctx: RunContext): Promise<ApplyResult> {
  const { target } = plan;
  if (!plan.restartOnly) {
    deps.emit('update_started', {
      run_id: ctx.runId,
      container: target.name,
      image: target.image,
      image_id: target.imageId,
      trigger: ctx.trigger,
      ...actorField(ctx),
      ...targetPlacement(target),
      ...signatureOf(plan),
      ...rollbackOf(plan),
    }, plan.restartOnly ? undefined : plan.staleness.findings);
  }
  let result: ApplyResult;
  try {
    result =
      (await deps.hooks.apply.promise(plan, ctx)) ??
      { target, outcome: 'failed', error: errors.noApplier(target.name, target.runtime).message, rolledBack: false };
  } catch (err) {
    // The applier threw instead of reporting: it could not tell us the old target is intact.
    result = { target, outcome: 'failed', error: errorMessage(err), rolledBack: false };
  }
  if (result.outcome === 'updated') {
    // One line per container at info level: what a run-once or a scheduled run changed is in its log.
    ctx.logger.info(
      {
        container: target.name,
        from: target.image,
        to: result.newImage ?? target.image,
        old_image_id: result.oldImageId ?? target.imageId,
        new_image_id: result.newImageId ?? '',
      },
      isRollbackPlan(plan) ? 'container rolled back' : 'container updated',
    );
    deps.emit('update_completed', {
      run_id: ctx.runId,
      container: target.name,
      image: result.newImage ?? target.image,
      old_image: target.image,
      old_image_id: result.oldImageId ?? target.imageId,
      new_image_id: result.newImageId ?? '',
      trigger: ctx.trigger,
      ...actorField(ctx),
      ...targetPlacement(target),
      ...signatureOf(plan),
      ...rollbackOf(plan),
    }, plan.restartOnly ? undefined : plan.staleness.findings);
  } else if (result.outcome === 'failed') {
    // The reason in the log too, not only in the event: a run-once or a scheduled run has no other reader, and a
    // socket proxy's refusal names there the switch to allow (docs/security.md).
    ctx.logger.warn({ container: target.name, err: result.error ?? 'update failed', rolled_back: result.rolledBack ?? false }, 'update failed');
    deps.emit('update_failed', {
      run_id: ctx.runId,
      container: target.name,
      image: target.image,
      error: result.error ?? 'update failed',
      rolled_back: result.rolledBack ?? false,
      trigger: ctx.trigger,
      ...actorField(ctx),
      ...targetPlacement(target),
      ...rollbackOf(plan),
    });
  }
  return result;
}

export function tally(targets: number, results: readonly ApplyResult[], skipped: number): UpdateSummary {
  const count = (outcome: ApplyResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
  const skippedTotal = skipped + count('skipped');
  return {
    // Watchtower's accounting: scanned excludes skipped targets.
    scanned: targets - skippedTotal,
    updated: count('updated'),
    failed: count('failed'),
    restarted: count('restarted'),
    skipped: skippedTotal,
  };
}

export async function runUpdate(deps: UpdateRunDeps, ctx: RunContext): Promise<UpdateReport> {
  const { targets, results: checked } = await discoverAndCheck(deps.hooks, deps.split, ctx, deps.concurrency);
  ctx.signal.throwIfAborted();
  const { candidates, skipped, failed, chosen } = await triage(deps, checked, ctx);
  // The report names the candidate applied, not the highest refused: state, audit and notifications agree with the runtime.
  const checks = chosen.size === 0 ? checked : checked.map((c) => {
    const passed = chosen.get(targetKey(c.target));
    return passed ? { ...c, staleness: passed } : c;
  });
  const { plans, cyclic } = plansInOrder(candidates);
  for (const target of cyclic) skipped.push({ target, reason: 'dependency cycle' });

  const results: ApplyResult[] = [...failed];
  try {
    await applyAll(deps, plans, targets, ctx, results);
  } finally {
    // A cancelled run cleans up too: a runtime puts back the dependents it stopped for a replacement
    // whose own plans will not come, before the run (and perhaps the process) ends.
    try {
      await deps.hooks.cleanup.promise(results, ctx);
    } catch (err) {
      ctx.logger.error({ err: errorMessage(err) }, 'cleanup failed');
    }
  }
  return {
    runId: ctx.runId,
    targeted: ctx.targeted,
    summary: tally(targets.length, results, skipped.length),
    checks,
    results,
    skipped,
    startedAt: ctx.startedAt,
    finishedAt: new Date(),
  };
}
