// Applying a decided plan (docs/plans.md): an update run whose targets, candidates and order were decided
// before. Discovery finds each planned container again; one that changed since (another container id, image
// or image id) is skipped `changed since plan`. The others pass the staleness stage once more so that the
// runtimes' observers see them as in any update run (the running-at-start invariant, lifecycle pre-check),
// but the stage is answered from the plan before any source asks a registry: the runtime pulls and runs the
// planned digest, never what the tag names by now. The gates are not asked again: they judged the plan.
import { mapBounded } from './bounded.js';
import { discoverAndSelect } from './check-run.js';
import { targetKey, transitiveDependents } from './dependency-order.js';
import { errorMessage } from './errors.js';
import type { Hooks } from './hooks.js';
import { identityOf, type AppliedPlan, type DecidedPlan, type PlannedEntry, type PlanStepOutcome } from './plan.js';
import type { ApplyResult, CheckResult, RunContext, Staleness, Target } from './types.js';
import { applyAll, plansInOrder, tally, type Candidate, type UpdateRunDeps } from './update-run.js';
import { STAGES } from './watch-split.js';

export const CHANGED_SINCE_PLAN = 'changed since plan';

/** The planned answers of the runs applying a plan, by target identity. */
const answers = new WeakMap<RunContext, ReadonlyMap<string, Staleness>>();

/**
 * The core's own staleness tap: right after the observers, before every source (and before a plugin that
 * answers for its own runs, such as an approval's), a run applying a plan is answered from the plan.
 */
export function tapPlannedAnswers(hooks: Hooks): void {
  hooks.checkStaleness.tap({ name: 'tidewatch:plan', stage: STAGES.checkStaleness.observe + 1 }, (target, ctx) =>
    answers.get(ctx)?.get(identityOf(target)),
  );
}

/** Whether the container found now is not the one the plan was decided on. */
function changedSince(planned: Target, now: Target | undefined): boolean {
  return !now || now.id !== planned.id || now.image !== planned.image || now.imageId !== planned.imageId;
}

function outcomeOf(result: ApplyResult | undefined): { outcome: PlanStepOutcome; reason?: string } {
  if (!result) return { outcome: 'skipped', reason: 'not applied: the run ended before this step' };
  switch (result.outcome) {
    case 'updated':
    case 'restarted':
      return { outcome: 'updated' };
    case 'skipped':
      return { outcome: 'skipped', reason: result.reason ?? 'skipped by its runtime' };
    case 'failed':
      return { outcome: result.rolledBack ? 'rolled_back' : 'failed', reason: result.error ?? 'update failed' };
  }
}

export async function applyDecidedPlan(deps: UpdateRunDeps, decided: DecidedPlan, ctx: RunContext): Promise<AppliedPlan> {
  const found = new Map((await discoverAndSelect(deps.hooks, ctx)).map((t) => [identityOf(t), t]));
  ctx.signal.throwIfAborted();
  const current: PlannedEntry[] = [];
  const changed: PlannedEntry[] = [];
  for (const entry of decided.entries) {
    const now = found.get(identityOf(entry.target));
    if (changedSince(entry.target, now)) changed.push(entry);
    else current.push({ ...entry, target: now as Target });
  }
  // A linked restart moves only with a planned update that is still applied.
  const updating = new Set(current.filter((e) => !e.restartOnly).map((e) => targetKey(e.target)));
  const moved = transitiveDependents(current.map((e) => e.target), updating);
  const kept = current.filter((e) => !e.restartOnly || moved.has(targetKey(e.target)));

  answers.set(ctx, new Map(kept.map((e) => [identityOf(e.target), e.staleness])));
  const results: ApplyResult[] = [];
  const candidates: Candidate[] = [];
  await mapBounded(kept, deps.concurrency, async (entry) => {
    try {
      await deps.hooks.checkStaleness.promise(entry.target, ctx);
      candidates.push({ target: entry.target, staleness: entry.staleness, restartOnly: entry.restartOnly });
    } catch (err) {
      // An observer refused (a lifecycle pre-check failed): that step fails, nothing of it was touched.
      results.push({ target: entry.target, outcome: 'failed', error: errorMessage(err), rolledBack: false });
    }
  });
  ctx.signal.throwIfAborted();
  // The plan's order (waves, dependencies first), whatever order the observers finished in.
  const order = new Map(kept.map((e, i) => [identityOf(e.target), i]));
  candidates.sort((a, b) => (order.get(identityOf(a.target)) as number) - (order.get(identityOf(b.target)) as number));
  const { plans } = plansInOrder(candidates);
  try {
    await applyAll(deps, plans, [...found.values()], ctx, results);
  } finally {
    try {
      await deps.hooks.cleanup.promise(results, ctx);
    } catch (err) {
      ctx.logger.error({ err: errorMessage(err) }, 'cleanup failed');
    }
  }

  const resultOf = new Map(results.map((r) => [identityOf(r.target), r]));
  const changedSteps = new Set(changed.map((e) => e.step).filter((s) => s !== undefined));
  const entryOfStep = new Map(decided.entries.map((e) => [e.step, e]));
  const steps = decided.plan.steps.map((step, index) => {
    if (changedSteps.has(index)) return { ...step, outcome: 'skipped' as const, reason: CHANGED_SINCE_PLAN };
    const entry = entryOfStep.get(index) as PlannedEntry;
    return { ...step, ...outcomeOf(resultOf.get(identityOf(entry.target))) };
  });
  const skipped = changed.map((e) => ({ target: e.target, reason: CHANGED_SINCE_PLAN }));
  const checks: CheckResult[] = kept.map((e) => ({ target: e.target, staleness: e.staleness, checkedAt: decided.plan.createdAt }));
  return {
    runId: ctx.runId,
    targeted: ctx.targeted,
    summary: tally(decided.entries.length, results, skipped.length),
    checks,
    results,
    skipped,
    startedAt: ctx.startedAt,
    finishedAt: new Date(),
    planId: decided.plan.planId,
    steps,
  };
}
