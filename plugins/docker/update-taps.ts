// The Docker runtime's part of an update run: the monitor-only gate, the pre-check hooks (before a
// target's staleness check), apply for Docker targets, and after the run (the core runs cleanup after a
// cancelled run too): restoring anything an aborted or partial run left aside, the running-before,
// running-after invariant, post-check hooks, and image cleanup. The work itself is in update-work.ts.
import { STAGES, type ApplyResult, type RunContext, type Target, type TidewatchCore } from '../../core/index.js';
import { DATA_DIR_HANDOVER, STATE_STORE } from '../../contracts/index.js';
import { firstUse } from '../../contracts/shared/first-use.js';
import type { Violation } from './replace/invariant.js';
import { monitorOnlyGate } from './monitor-only.js';
import { RunStates } from './replace/run-state.js';
import type { DockerRuntime } from './runtime.js';
import { RUNTIME } from './target.js';
import type { PullSlots } from './update-work.js';

// The replacement path, pulls, self-update, Compose follow-up and cleanup (update-work.ts) load with the first
// update run that needs them (docs/plugins.md#loading-code-at-first-use): an idle service never runs them.
const updateWork = firstUse(() => import('./update-work.js'));

/**
 * A violation of the invariant is the run's failure for that target, whatever its apply reported: its
 * result becomes `failed` (the run's summary is counted after cleanup) and `update_failed` says so.
 */
function reportViolation(core: TidewatchCore, results: ApplyResult[], { target, error }: Violation, ctx: RunContext): void {
  const failed: ApplyResult = { target, outcome: 'failed', error, rolledBack: false };
  const index = results.findIndex(
    (r) => r.target.name === target.name && r.target.runtime === target.runtime && r.target.host === target.host,
  );
  if (index === -1) results.push(failed);
  else results[index] = failed;
  core.emit('update_failed', { run_id: ctx.runId, container: target.name, image: target.image, error, rolled_back: false });
}

/**
 * The taps of one engine's runtime: each acts only on the targets of its engine (`host`), so several
 * engines each replace, restore and clean up their own containers in the one run (docs/hosts.md).
 */
export function tapUpdates(core: TidewatchCore, rt: DockerRuntime, host: string): void {
  const states = new RunStates();
  const { options } = rt;
  const mine = (target: Target) => target.runtime === RUNTIME && target.host === host;

  core.hooks.gate.tapPromise({ name: RUNTIME, stage: STAGES.gate.report }, async (target) =>
    mine(target) ? monitorOnlyGate(target, options, RUNTIME) : undefined,
  );

  // At the commit stage, after every gate (cooldown must decide before any layer is pulled): a stale
  // target that gets this far will be replaced, so its pull starts now and overlaps the replacements
  // before it.
  let pullSlots: PullSlots | undefined;
  const slotsOf = (work: typeof import('./update-work.js')) => (pullSlots ??= new work.PullSlots());
  core.hooks.gate.tapPromise({ name: RUNTIME, stage: STAGES.gate.commit }, async (target, staleness, ctx) => {
    // Deciding a plan pulls nothing: the plan may never be applied, and a pull by digest retags the image.
    if (!mine(target) || ctx.kind !== 'update' || ctx.preview || !staleness.stale || staleness.error) return undefined;
    const work = await updateWork();
    // Awaited (and its failure reported) by the replacement; here it only has to start.
    await work.startPull(rt, target, staleness, ctx, slotsOf(work));
    return undefined;
  });

  // Every target of an update run that is running now must be running when the run ends (replace/invariant.ts).
  // Synchronous: it never waits, and every target of every run passes it.
  core.hooks.checkStaleness.tap({ name: RUNTIME, stage: STAGES.checkStaleness.observe }, (target, ctx) => {
    if (mine(target) && ctx.kind === 'update' && target.state === 'running') {
      states.of(ctx).runningAtStart.set(target.name, target);
    }
    return undefined;
  });

  if (options.enableLifecycleHooks) {
    // Before every staleness source, so the pre-check runs before the container is checked.
    core.hooks.checkStaleness.tapPromise({ name: RUNTIME, stage: STAGES.checkStaleness.observe }, async (target, ctx) => {
      // A plan's pre-check runs when it is applied (the plan answers the staleness then), not when decided.
      if (!mine(target) || ctx.kind !== 'update' || ctx.preview) return undefined;
      states.of(ctx).checkedTargets.set(target.name, target);
      await (await updateWork()).runCheckHook(rt, target, 'pre-check', ctx);
      return undefined;
    });
  }

  core.hooks.apply.tapPromise(RUNTIME, async (plan, ctx) => {
    if (!mine(plan.target)) return undefined;
    const handover = core.services.get(DATA_DIR_HANDOVER);
    const store = core.services.get(STATE_STORE);
    const work = await updateWork();
    // A Compose-managed container moved to another tag: its file (docs/compose.md#tag-updates-and-compose).
    return work.applyPlan(rt, plan, ctx, states.of(ctx), slotsOf(work), handover, store);
  });

  core.hooks.cleanup.tapPromise(RUNTIME, async (results, ctx) => {
    const work = await updateWork();
    await work.cleanUpRun(rt, states.of(ctx), ctx, host, core.services.get(STATE_STORE), {
      violated: (violation) => reportViolation(core, results, violation, ctx),
      cleaned: (images) => core.emit('image_cleanup', { run_id: ctx.runId, images }),
    });
  });
}
