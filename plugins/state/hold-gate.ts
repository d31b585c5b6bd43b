// Holds (docs/state.md#holds): a rolled-back container (by its id, docs/state.md#identity) is not put back on
// the image it was rolled back from. The gate skips a candidate that is that image; a newer one passes, and its
// update, once applied, ends the hold. It also remembers each candidate's staleness for the audit trail (audit-taps.ts),
// at the gate, or where a plan's run hands it to the runtime.
import { STAGES, bareDigest, type RunContext, type Staleness, type TidewatchCore } from '../../core/index.js';
import type { Hold, StateStore } from './contracts.js';
import type { RollbackRuns } from './rollback.js';

export type SeenStaleness = WeakMap<RunContext, Map<string, Staleness>>;

/** Before the runtimes' `apply` taps (at the default stage). */
const BEFORE_RUNTIMES = -1000;

/** True when the newest image the check found is the held one (or the check cannot tell). */
export function isHeldImage(hold: Hold, staleness: Staleness): boolean {
  if (staleness.latestDigest) return bareDigest(staleness.latestDigest) === hold.digest;
  if (staleness.latestImageId) return staleness.latestImageId === hold.imageId;
  return true;
}

export function holdReason(hold: Hold, name: string): string {
  return `held after a rollback from ${hold.digest || hold.imageId}: POST /v1/release?container=${name} lifts the hold`;
}

export function tapHoldGate(core: TidewatchCore, store: StateStore, rollbacks: RollbackRuns): SeenStaleness {
  const seen: SeenStaleness = new WeakMap();
  const remember = (ctx: RunContext, id: string, staleness: Staleness): void => {
    let map = seen.get(ctx);
    if (!map) seen.set(ctx, (map = new Map()));
    map.set(id, staleness);
  };
  // A run applying a plan asks no gate (docs/plans.md#applying): its candidates are remembered where the runtime is
  // handed them, before any runtime's tap, so that its replacements are audited as any run's.
  core.hooks.apply.tap({ name: 'state', stage: BEFORE_RUNTIMES }, (plan, ctx) => {
    if (!seen.get(ctx)?.has(plan.target.id)) remember(ctx, plan.target.id, plan.staleness);
    return undefined;
  });
  core.hooks.gate.tapPromise({ name: 'state', stage: STAGES.gate.defer }, async (target, staleness, ctx) => {
    remember(ctx, target.id, staleness);
    // A dependent restarted on its own image is not an update: its hold stays as it is.
    if (ctx.kind !== 'update' || !staleness.stale || rollbacks.isRollbackRun(ctx.runId)) return undefined;
    const hold = store.hold(target.id);
    if (!hold) return undefined;
    if (isHeldImage(hold, staleness)) return { reason: holdReason(hold, target.name), by: 'state' };
    // A newer image passes this gate, but the hold ends only when an update is applied (audit-taps.ts): a later
    // gate may refuse this candidate, and the next lower one may be the held image again
    // (docs/plugins.md#candidates-through-gates).
    ctx.logger.debug({ container: target.name }, 'a newer image than the one rolled back from: not held');
    return undefined;
  });
  return seen;
}
