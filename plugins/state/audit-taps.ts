// The audit trail of update runs (docs/state.md#the-audit-trail): after the run's cleanup (and the
// runtime's end-of-run check, which may turn a result into `failed`), one entry per replacement, rollback
// and dependent restart, with the previous image remembered for rollback on demand and holds set or ended.
// Failed checks are not changes: only targets that reached the gates are written. Then each replacement the
// runtime reported (`newContainerId`) is followed: the new container inherits the old one's state
// (docs/state.md#identity).
import {
  FINDINGS,
  bareDigest,
  errorMessage,
  readFinding,
  repoDigest,
  type ApplyResult,
  type RunContext,
  type SnapshotRef,
  type Staleness,
  type TidewatchCore,
} from '../../core/index.js';
import type { AuditImage, AuditRecord, StateStore } from './contracts.js';
import { rememberOutcome } from './failed-candidates.js';

/** The version the check named (core FINDINGS.version), as the audit entry's `to.version`. */
function versionOf(staleness: Staleness): { version?: string } {
  const version = readFinding(staleness, FINDINGS.version);
  return version ? { version } : {};
}
import type { SeenStaleness } from './hold-gate.js';
import type { RollbackRuns } from './rollback.js';

/** The label an image's version is read from (docs/versions.md). */
const VERSION_LABEL = 'org.opencontainers.image.version';

/** After every other cleanup tap (the runtimes' are at the default stage). */
const AFTER_RUNTIMES = 1000;

function recordOf(
  store: StateStore,
  rollbacks: RollbackRuns,
  result: ApplyResult,
  staleness: Staleness,
  ctx: RunContext,
): AuditRecord | undefined {
  const { target } = result;
  const key = target.id;
  const base = { container: target.name, ...(target.host ? { host: target.host } : {}), trigger: ctx.trigger, ...(ctx.actor ? { actor: ctx.actor } : {}), run_id: ctx.runId };
  const running = target.imageLabels[VERSION_LABEL]?.trim();
  const from: AuditImage = {
    image: target.image, digest: repoDigest(target, staleness), image_id: result.oldImageId ?? target.imageId,
    ...(running ? { version: running } : {}),
  };
  const previous = rollbacks.rollbackOf(ctx.runId, key);
  const error = result.error === undefined ? {} : { error: result.error };
  // What became of a Compose file, say (docs/compose.md#rollback-and-compose).
  const note = { ...(result.note === undefined ? {} : { note: result.note }), ...(result.snapshot ? { snapshot: result.snapshot } : {}) };
  switch (result.outcome) {
    case 'updated': {
      const now = new Date().toISOString();
      if (previous) {
        // Held: no run puts it back on the image it was rolled back from (hold-gate.ts).
        store.setHold(key, { imageId: from.image_id, digest: from.digest, image: target.image, since: now });
        store.setPreviousImage(key, undefined);
        const to = { image: previous.image, digest: previous.digest, image_id: result.newImageId ?? previous.imageId, ...(previous.version ? { version: previous.version } : {}) };
        return { ...base, action: 'rollback', from, to, outcome: 'rolled_back', ...note };
      }
      store.setPreviousImage(key, { image: target.image, imageId: from.image_id, digest: from.digest, ...(from.version ? { version: from.version } : {}), replacedAt: now });
      store.setHold(key, undefined);
      const digest = staleness.latestDigest ? bareDigest(staleness.latestDigest) : '';
      // A tag update runs another reference than the one it replaced (`newImage`).
      // The version the check named (the candidate's label, or the newer tag under a tag policy).
      const to = { image: result.newImage ?? target.image, digest, image_id: result.newImageId ?? '', ...versionOf(staleness) };
      return { ...base, action: 'update', from, to, outcome: 'updated', ...note };
    }
    case 'restarted':
      return { ...base, action: 'restart', from, outcome: 'restarted' };
    case 'failed':
      if (previous) return { ...base, action: 'rollback', from, outcome: 'failed', ...error, ...snapshotOf(result) };
      return { ...base, action: 'update', from, outcome: result.rolledBack ? 'rolled_back' : 'failed', ...error, ...snapshotOf(result) };
    default:
      return undefined;
  }
}

/** The snapshot an update took or a rollback restored, for its audit entry (docs/snapshots.md). */
const snapshotOf = (result: ApplyResult): { snapshot?: SnapshotRef } => (result.snapshot ? { snapshot: result.snapshot } : {});

export function tapAudit(core: TidewatchCore, store: StateStore, rollbacks: RollbackRuns, seen: SeenStaleness): void {
  core.hooks.cleanup.tapPromise({ name: 'state', stage: AFTER_RUNTIMES }, async (results, ctx) => {
    const candidates = seen.get(ctx);
    if (!candidates) return;
    for (const result of results) {
      const staleness = candidates.get(result.target.id);
      const record = staleness && recordOf(store, rollbacks, result, staleness, ctx);
      if (staleness && !rollbacks.isRollbackRun(ctx.runId)) rememberOutcome(store, result, staleness);
      if (result.newContainerId && (result.outcome === 'updated' || result.outcome === 'restarted')) {
        store.followReplacement(result.target.id, result.newContainerId);
      }
      if (!record) continue;
      try {
        await store.appendAudit(record);
      } catch (err) {
        ctx.logger.error({ container: result.target.name, err: errorMessage(err) }, 'could not write the audit trail');
      }
    }
  });
}
