// Failed candidates (docs/state.md#failed-candidates): a candidate image that failed to run in a container
// (the runtime's `candidateFailed`: it did not start or stay up, and was rolled back) is remembered with its
// reason, and no run tries it again, so a broken image costs one attempt, not downtime at every run. A newer
// candidate, a person's targeted update (`POST /v1/update?container=NAME`, Home Assistant's Install) or
// `POST /v1/release?container=NAME` ends it. The first run that skips it says so once: an audit entry
// `not_retried` with the digest.
import {
  STAGES,
  bareDigest,
  errorMessage,
  repoDigest,
  type ApplyResult,
  type RunContext,
  type Staleness,
  type Target,
  type TidewatchCore,
} from '../../core/index.js';
import type { FailedCandidate, StateStore } from './contracts.js';
import type { RollbackRuns } from './rollback.js';

/** Triggers of a person's own request: a targeted run they started tries a failed candidate again. */
const PERSON_TRIGGERS = new Set(['api', 'mqtt']);

const REASON_LENGTH = 200;

function bounded(reason: string): string {
  return reason.length > REASON_LENGTH ? `${reason.slice(0, REASON_LENGTH - 1)}…` : reason;
}

/** What a failed update tried, as the memory keeps it. */
export function failedCandidateOf(result: ApplyResult, staleness: Staleness): FailedCandidate {
  return {
    image: result.target.image,
    digest: staleness.latestDigest ? bareDigest(staleness.latestDigest) : '',
    imageId: staleness.latestImageId ?? result.newImageId ?? '',
    reason: bounded(result.error ?? 'the new image did not start'),
    since: new Date().toISOString(),
  };
}

/** True when the check found the very candidate that failed (by digest, else by local image id). */
export function isFailedCandidate(failed: FailedCandidate, staleness: Staleness): boolean {
  if (staleness.latestDigest && failed.digest) return bareDigest(staleness.latestDigest) === failed.digest;
  if (staleness.latestImageId && failed.imageId) return staleness.latestImageId === failed.imageId;
  return false;
}

export function notRetriedReason(failed: FailedCandidate, name: string): string {
  return (
    `not retried: ${failed.digest || failed.imageId} failed at ${failed.since}: ${failed.reason}; ` +
    `POST /v1/update?container=${name} tries it again`
  );
}

/**
 * Tidewatch's own container handed to the ephemeral self-update helper: `updated` with no successor known
 * here. The runtime remembered the release as failed before the hand-off (docs/image.md#ephemeral-self-update),
 * which stands if the helper puts this container back; it must not be forgotten here.
 */
function handedOff(result: ApplyResult): boolean {
  return result.target.runtime === 'docker' && result.target.isSelf && result.newContainerId === undefined;
}

/** The memory's part of a finished run: a failed candidate remembered, a successful update forgets one. */
export function rememberOutcome(store: StateStore, result: ApplyResult, staleness: Staleness): void {
  const { id } = result.target;
  if (result.outcome === 'failed' && result.candidateFailed) store.setFailedCandidate(id, failedCandidateOf(result, staleness));
  else if (result.outcome === 'updated' && !handedOff(result)) store.setFailedCandidate(id, undefined);
}

async function reportOnce(store: StateStore, target: Target, failed: FailedCandidate, ctx: RunContext): Promise<void> {
  if (failed.reported) return;
  store.setFailedCandidate(target.id, { ...failed, reported: true });
  try {
    await store.appendAudit({
      action: 'update',
      container: target.name,
      ...(target.host ? { host: target.host } : {}),
      trigger: ctx.trigger,
      run_id: ctx.runId,
      from: { image: target.image, digest: repoDigest(target), image_id: target.imageId },
      to: { image: failed.image, digest: failed.digest, image_id: failed.imageId },
      outcome: 'not_retried',
      error: failed.reason,
    });
  } catch (err) {
    ctx.logger.error({ container: target.name, err: errorMessage(err) }, 'could not write the audit trail');
  }
}

export function tapFailedCandidateGate(core: TidewatchCore, store: StateStore, rollbacks: RollbackRuns): void {
  core.hooks.gate.tapPromise({ name: 'state', stage: STAGES.gate.defer }, async (target, staleness, ctx) => {
    if (ctx.kind !== 'update' || !staleness.stale || rollbacks.isRollbackRun(ctx.runId)) return undefined;
    const failed = store.failedCandidate(target.id);
    if (!failed) return undefined;
    if (!isFailedCandidate(failed, staleness)) {
      store.setFailedCandidate(target.id, undefined);
      ctx.logger.info({ container: target.name }, 'a newer candidate than the one that failed: trying it');
      return undefined;
    }
    if (ctx.targeted && PERSON_TRIGGERS.has(ctx.trigger)) {
      store.setFailedCandidate(target.id, undefined);
      ctx.logger.info({ container: target.name, digest: failed.digest }, 'asked for by a person: trying the failed candidate again');
      return undefined;
    }
    await reportOnce(store, target, failed, ctx);
    return { reason: notRetriedReason(failed, target.name), by: 'state' };
  });
}
