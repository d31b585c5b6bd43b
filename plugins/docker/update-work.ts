// The work behind the Docker runtime's update taps (update-taps.ts): pulls, the replacement path (replace/), the
// self-update (self/), the Compose follow-up (compose/), the run's cleanup and the check hooks. Loaded at the
// first update run that gets this far (contracts/shared/first-use.ts): an idle service, and one that only checks,
// never loads it (docs/performance.md#footprint).
import { errorMessage, type ApplyResult, type RunContext, type Staleness, type Target, type UpdatePlan } from '../../core/index.js';
import type { DataDirHandover, StateStore } from '../../contracts/index.js';
import { restoreAll } from './replace/aside.js';
import { followCompose } from './compose/follow-up.js';
import { inspectOrUndefined } from './replace/container-ops.js';
import { enforceRunning, type Violation } from './replace/invariant.js';
import { handOffToOrchestrator, type FailedCandidateMemory } from './self/ephemeral.js';
import { removeReplacedImages } from './image/cleanup.js';
import { retainImages } from './image/retention.js';
import { runHook, type HookPhase } from './replace/lifecycle-hooks.js';
import { pullTargetOf, type PullTarget } from './image/pinned-pull.js';
import { PullSlots, pullForRun } from './image/pull.js';
import { followAll } from './replace/namespace-follow.js';
import { needsPull, replaceContainer } from './replace/replace.js';
import { removeReplaced } from './replace/removal.js';
import type { RunState } from './replace/run-state.js';
import { runsInContainer, type DockerRuntime } from './runtime.js';
import { ownership, selfUpdateBlocker } from './self/update.js';

export { PullSlots };

/** Check hooks are only logged when they fail (Watchtower). */
export async function runCheckHook(rt: DockerRuntime, target: Target, phase: HookPhase, ctx: RunContext): Promise<void> {
  try {
    // By name: after a replacement the container the target named is gone, its successor is not.
    const info = await inspectOrUndefined(rt.docker, phase === 'post-check' ? target.name : target.id);
    if (!info?.State.Running) return;
    const result = await runHook(rt.docker, info, phase, { uid: rt.options.lifecycleUid, gid: rt.options.lifecycleGid });
    if (result && (result.timedOut || result.exitCode !== 0)) {
      ctx.logger.warn({ container: target.name, exit_code: result.exitCode, timed_out: result.timedOut }, `${phase} command failed`);
    }
  } catch (err) {
    ctx.logger.warn({ container: target.name, err: errorMessage(err) }, `${phase} command could not run`);
  }
}

/**
 * At the commit stage, after every gate: a stale target that gets this far will be replaced, so its pull starts
 * now (not awaited: the replacement awaits it and reports its failure) and overlaps the replacements before it.
 */
export async function startPull(rt: DockerRuntime, target: Target, staleness: Staleness, ctx: RunContext, slots: PullSlots): Promise<void> {
  const own = ownership(target, rt.ownId(), runsInContainer());
  if (own === 'unknown' || (own === 'own' && !rt.options.selfUpdate)) return;
  if (await needsPull(rt.docker, { restartOnly: false, staleness })) {
    pullForRun(rt.docker, pullTargetOf(target.image, staleness), rt.options.authFor, ctx, slots).catch(() => undefined);
  }
}

async function replaceOrHandOff(
  rt: DockerRuntime,
  plan: UpdatePlan,
  ctx: RunContext,
  state: RunState,
  slots: PullSlots,
  handover: DataDirHandover | undefined,
  store: FailedCandidateMemory | undefined,
): Promise<ApplyResult> {
  const { target } = plan;
  // A Tidewatch container on an agent's host is (or may be) the agent itself: replacing it would cut the tunnel
  // the replacement runs through, leaving it stopped with nothing to repair it (docs/fleet.md#the-agents-own-container).
  if (target.isSelf && target.host?.startsWith('agent://')) {
    return { target, outcome: 'skipped', reason: "the agent's own container: update it on its host" };
  }
  const own = ownership(target, rt.ownId(), runsInContainer());
  if (own === 'unknown') {
    return { target, outcome: 'skipped', reason: "cannot tell whether this is Tidewatch's own container" };
  }
  if (own === 'own') {
    const blocker = await selfUpdateBlocker(rt.docker, target, rt.options.selfUpdate, rt.options.ephemeralSelfUpdate);
    if (blocker) {
      // Said every run the own image is stale, so a user wondering why it never updates sees why.
      ctx.logger.info({ container: target.name, reason: blocker }, `not updating Tidewatch's own container: ${blocker}`);
      return { target, outcome: 'skipped', reason: blocker };
    }
  }
  const pull = (image: PullTarget) => pullForRun(rt.docker, image, rt.options.authFor, ctx, slots);
  if (own === 'own' && rt.options.ephemeralSelfUpdate) {
    // The helper stops this container: the invariant must not start it (or its staged successor) again.
    state.runningAtStart.delete(target.name);
    return handOffToOrchestrator(rt, { plan, logger: ctx.logger, pull, handover, store });
  }
  return replaceContainer(rt, { plan, state, isOwn: own === 'own', logger: ctx.logger, pull, signal: ctx.stopping, handover, runId: ctx.runId });
}

/** The runtime's apply of one plan, then the Compose follow-up of a tag update (docs/compose.md#tag-updates-and-compose). */
export async function applyPlan(
  rt: DockerRuntime,
  plan: UpdatePlan,
  ctx: RunContext,
  state: RunState,
  slots: PullSlots,
  handover: DataDirHandover | undefined,
  store: FailedCandidateMemory | undefined,
): Promise<ApplyResult> {
  return followCompose(plan, await replaceOrHandOff(rt, plan, ctx, state, slots, handover, store), rt.options.composeRewrite, ctx.logger);
}

/** What the run's cleanup tells the taps, in the order it happens. */
export interface CleanupReports {
  /** A target running when the run began is not running now (replace/invariant.ts). */
  violated(violation: Violation): void;
  /** Replaced images were removed (--cleanup). */
  cleaned(images: { image_id: string; image_name: string }[]): void;
}

/**
 * After the run: dependents whose own plan never came are put back, replaced containers removed, the
 * running-before, running-after invariant enforced, post-check hooks run, and the replaced images cleaned up
 * (kept for rollback where the state survives a restart).
 */
export async function cleanUpRun(rt: DockerRuntime, state: RunState, ctx: RunContext, host: string, store: StateStore | undefined, reports: CleanupReports): Promise<void> {
  const { options } = rt;
  // Dependents whose own plan never came (it cannot, normally) must not stay stopped; one that joins a
  // replaced container's namespaces is recreated joined to its successor (replace/namespace-follow.ts).
  const aside = [...state.asideDependents.values()];
  const errors = [...(await followAll(rt, aside, ctx.logger)), ...(await restoreAll(rt.docker, aside))];
  state.asideDependents.clear();
  await removeReplaced(rt, state, ctx.logger);
  if (errors.length > 0) ctx.logger.error({ errors }, 'could not restore every stopped dependent');
  for (const violation of await enforceRunning(rt, state.runningAtStart.values(), ctx.logger)) reports.violated(violation);
  if (options.enableLifecycleHooks) {
    for (const target of state.checkedTargets.values()) await runCheckHook(rt, target, 'post-check', ctx);
  }
  if (options.cleanup) {
    // Kept only where the list of kept images survives a restart (a data directory): kept in memory, a
    // restart would leave them on disk for good (docs/state.md#cleanup-and-retention).
    const retains = store?.dir !== undefined && options.rollbackRetentionMs > 0;
    const due = retains ? retainImages(store, state.replacedImages, host, options.rollbackRetentionMs) : state.replacedImages;
    const images = await removeReplacedImages(rt.docker, due, ctx.logger, await rt.profile());
    if (images.length > 0) reports.cleaned(images);
  }
}
