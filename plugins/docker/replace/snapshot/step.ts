// Snapshots in the one replacement path (docs/snapshots.md): decided before anything is touched, taken
// once the old container stopped and before the new one starts, restored with a rollback before the old
// container starts again. The journal (SNAPSHOTS) records, before the new container starts, that the volumes
// may change: start-up repair puts the snapshot back if the process dies before the new container is proven.
import type Docker from 'dockerode';
import { errorMessage, type Logger, type SnapshotRef, type UpdatePlan } from '../../../../core/index.js';
import type { SnapshotRecord, Snapshots } from '../../../../contracts/index.js';
import type { DockerRuntime } from '../../runtime.js';
import { restoreSnapshot } from './restore.js';
import { takeSnapshot } from './take.js';
import { snapshotMounts, snapshotWanted, type SnapshotMount } from './volumes.js';

export { SnapshotSkip } from './take.js';

/** What a replacement does with snapshots: take one (an update), restore one (a rollback with restore=volumes). */
export interface SnapshotStep {
  readonly snapshots: Snapshots;
  readonly take?: readonly SnapshotMount[];
  readonly restore?: SnapshotRecord;
}

/**
 * Before anything is touched: the step, nothing, or the reason to skip the update. A rollback takes no
 * snapshot of its own (docs/snapshots.md#restore), nor does a restart or Tidewatch's own container.
 */
export function planSnapshot(
  rt: DockerRuntime,
  info: Docker.ContainerInspectInfo,
  plan: UpdatePlan,
  options: { isOwn: boolean; runId: string | undefined },
): SnapshotStep | { skip: string } | undefined {
  const snapshots = rt.options.snapshots?.();
  if (options.isOwn || plan.restartOnly || !snapshots) return undefined;
  if (plan.staleness.targetImageId) {
    const restore = options.runId ? snapshots.restoreRequested(options.runId, plan.target.id) : undefined;
    return restore ? { snapshots, restore } : undefined;
  }
  const wanted = snapshotWanted(info.Config.Labels ?? {}, snapshots);
  if (typeof wanted === 'string') return { skip: wanted };
  if (!wanted) return undefined;
  const mounts = snapshotMounts(info);
  if (!Array.isArray(mounts)) return { skip: mounts.refused };
  return mounts.length > 0 ? { snapshots, take: mounts } : undefined;
}

export const refOf = (record: SnapshotRecord, restored?: boolean): SnapshotRef => ({
  id: record.id,
  volumes: record.volumes.map((v) => v.name),
  ...(restored ? { restored } : {}),
});

/**
 * With the old container stopped: the update's snapshot taken (or an on-demand rollback's restored), and
 * journaled against the old container before the new one may start. Throws SnapshotSkip when it cannot.
 */
export async function snapshotStopped(
  rt: DockerRuntime,
  step: SnapshotStep,
  info: Docker.ContainerInspectInfo,
  meta: { container: string; host?: string; runId: string },
  logger: Logger,
): Promise<SnapshotRef> {
  const { snapshots } = step;
  if (step.restore) {
    await restoreJournaled(rt, snapshots, info.Id, step.restore, logger);
    logger.info({ container: meta.container, snapshot: step.restore.id }, 'volumes restored from the snapshot');
    return refOf(step.restore, true);
  }
  const began = Date.now();
  const record = await takeSnapshot(rt.docker, snapshots, info.Id, step.take ?? [], { ...meta, imageId: info.Image });
  await snapshots.setJournal(info.Id, { containerId: info.Id, snapshotId: record.id, phase: 'update' });
  const bytes = record.volumes.reduce((sum, v) => sum + v.bytes, 0);
  logger.info({ container: meta.container, snapshot: record.id, bytes, took_ms: Date.now() - began }, 'volumes snapshotted');
  return refOf(record);
}

/** Puts the snapshot back through the stopped container `id`, under a journal entry until it is done. */
export async function restoreJournaled(rt: DockerRuntime, snapshots: Snapshots, id: string, record: SnapshotRecord, logger: Logger): Promise<void> {
  await snapshots.setJournal(id, { containerId: id, snapshotId: record.id, phase: 'restore' });
  await restoreSnapshot(rt.docker, snapshots, id, record, logger);
  await snapshots.setJournal(id, undefined);
}

/** The new container is proven (or the rollback is done): the volumes are what they should be. */
export async function settleSnapshot(step: SnapshotStep | undefined, oldId: string, logger: Logger): Promise<void> {
  if (!step) return;
  await step.snapshots.setJournal(oldId, undefined).catch((err: unknown) => logger.error({ err: errorMessage(err) }, 'could not clear the snapshot journal'));
}

/** An automatic rollback of an update that snapshotted: the volumes back before the old container starts. */
export async function restoreOnRollback(rt: DockerRuntime, step: SnapshotStep | undefined, taken: SnapshotRef | undefined, oldId: string, logger: Logger): Promise<SnapshotRef | undefined> {
  if (!step || !taken || taken.restored) return undefined;
  const record = step.snapshots.get(taken.id);
  if (!record) throw new Error(`snapshot ${taken.id} is no longer in the index`);
  await restoreJournaled(rt, step.snapshots, oldId, record, logger);
  logger.info({ snapshot: record.id }, 'volumes restored from the snapshot taken before the update');
  return refOf(record, true);
}
