// The Docker runtime's part of an update run: the monitor-only gate, the pre-check hooks (before a
// target's staleness check), apply for Docker targets, and after the run (the core runs cleanup after a
// cancelled run too): restoring anything an aborted or partial run left aside, the running-before,
// running-after invariant, post-check hooks, and image cleanup.
import { STAGES, errorMessage, type ApplyResult, type RunContext, type Target, type TidewatchCore, type UpdatePlan } from '../../core/index.js';
import { DATA_DIR_HANDOVER, STATE_STORE, type DataDirHandover } from '../../contracts/index.js';
import { restoreAll } from './replace/aside.js';
import { followCompose } from './compose/follow-up.js';
import { inspectOrUndefined } from './replace/container-ops.js';
import { enforceRunning, type Violation } from './replace/invariant.js';
import { handOffToOrchestrator, type FailedCandidateMemory } from './self/ephemeral.js';
import { removeReplacedImages } from './image/cleanup.js';
import { retainImages } from './image/retention.js';
import { runHook, type HookPhase } from './replace/lifecycle-hooks.js';
import { monitorOnlyGate } from './monitor-only.js';
import { pullTargetOf, type PullTarget } from './image/pinned-pull.js';
import { PullSlots, pullForRun } from './image/pull.js';
import { followAll } from './replace/namespace-follow.js';
import { needsPull, replaceContainer } from './replace/replace.js';
import { removeReplaced } from './replace/removal.js';
import { RunStates, type RunState } from './replace/run-state.js';
import { runsInContainer, type DockerRuntime } from './runtime.js';
import { ownership, selfUpdateBlocker } from './self/update.js';
import { RUNTIME } from './target.js';

/** Check hooks are only logged when they fail (Watchtower). */
async function runCheckHook(rt: DockerRuntime, target: Target, phase: HookPhase, ctx: RunContext): Promise<void> {
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

async function applyDocker(
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
  const slots = new PullSlots();
  core.hooks.gate.tapPromise({ name: RUNTIME, stage: STAGES.gate.commit }, async (target, staleness, ctx) => {
    // Deciding a plan pulls nothing: the plan may never be applied, and a pull by digest retags the image.
    if (!mine(target) || ctx.kind !== 'update' || ctx.preview || !staleness.stale || staleness.error) return undefined;
    const own = ownership(target, rt.ownId(), runsInContainer());
    if (own === 'unknown' || (own === 'own' && !options.selfUpdate)) return undefined;
    if (await needsPull(rt.docker, { restartOnly: false, staleness })) {
      // Awaited (and its failure reported) by the replacement; here it only has to start.
      pullForRun(rt.docker, pullTargetOf(target.image, staleness), options.authFor, ctx, slots).catch(() => undefined);
    }
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
      await runCheckHook(rt, target, 'pre-check', ctx);
      return undefined;
    });
  }

  core.hooks.apply.tapPromise(RUNTIME, async (plan, ctx) => {
    if (!mine(plan.target)) return undefined;
    // A Compose-managed container moved to another tag: its file (docs/compose.md#tag-updates-and-compose).
    const handover = core.services.get(DATA_DIR_HANDOVER);
    const store = core.services.get(STATE_STORE);
    return followCompose(plan, await applyDocker(rt, plan, ctx, states.of(ctx), slots, handover, store), options.composeRewrite, ctx.logger);
  });

  core.hooks.cleanup.tapPromise(RUNTIME, async (results, ctx) => {
    const state = states.of(ctx);
    // Dependents whose own plan never came (it cannot, normally) must not stay stopped; one that joins a
    // replaced container's namespaces is recreated joined to its successor (replace/namespace-follow.ts).
    const aside = [...state.asideDependents.values()];
    const errors = [...(await followAll(rt, aside, ctx.logger)), ...(await restoreAll(rt.docker, aside))];
    state.asideDependents.clear();
    await removeReplaced(rt, state, ctx.logger);
    if (errors.length > 0) ctx.logger.error({ errors }, 'could not restore every stopped dependent');
    for (const violation of await enforceRunning(rt, state.runningAtStart.values(), ctx.logger)) {
      reportViolation(core, results, violation, ctx);
    }
    if (options.enableLifecycleHooks) {
      for (const target of state.checkedTargets.values()) await runCheckHook(rt, target, 'post-check', ctx);
    }
    if (options.cleanup) {
      const store = core.services.get(STATE_STORE);
      // Kept only where the list of kept images survives a restart (a data directory): kept in memory, a
      // restart would leave them on disk for good (docs/state.md#cleanup-and-retention).
      const retains = store?.dir !== undefined && options.rollbackRetentionMs > 0;
      const due = retains ? retainImages(store, state.replacedImages, host, options.rollbackRetentionMs) : state.replacedImages;
      const images = await removeReplacedImages(rt.docker, due, ctx.logger, await rt.profile());
      if (images.length > 0) core.emit('image_cleanup', { run_id: ctx.runId, images });
    }
  });
}
