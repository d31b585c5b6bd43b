// Start-up repair of volumes (docs/snapshots.md#crash-safety). A journal entry says the volumes mounted by an
// old container moved aside may no longer be as at its snapshot: the new container ran unproven (`update`),
// or a restore was under way (`restore`). Before repair starts the old container again, the snapshot is put
// back (every step of a restore is safe to repeat), so it runs on its own data, never on a half-restored volume.
import { errorMessage, type Logger } from '../../../../core/index.js';
import type { DockerRuntime } from '../../runtime.js';
import { parseOldAsideName } from '../aside-names.js';
import { inspectOrUndefined, isUp, stopContainer } from '../container-ops.js';
import { stopPolicy } from '../stop-policy.js';
import { restoreJournaled } from './step.js';

/** Puts the journaled snapshot back through the old container `id` before it starts; a note for the report. */
export async function finishRestore(rt: DockerRuntime, id: string, logger: Logger): Promise<string | undefined> {
  const snapshots = rt.options.snapshots?.();
  const entry = snapshots?.journal(id);
  if (!snapshots || !entry) return undefined;
  const record = snapshots.get(entry.snapshotId);
  if (!record) {
    await snapshots.setJournal(id, undefined);
    throw new Error(`snapshot ${entry.snapshotId} is gone: the volumes were left as they are`);
  }
  const info = await inspectOrUndefined(rt.docker, id);
  if (!info) return undefined;
  // The old container is stopped while it is aside; a stop a killed process asked for may still be completing.
  if (isUp(info)) await stopContainer(rt.docker, info, await stopPolicy(rt));
  await restoreJournaled(rt, snapshots, id, record, logger);
  return `volumes restored from snapshot ${record.id}`;
}

/** Journal entries of this engine's containers that are no longer aside: the replacement was settled. */
export async function dropSettledJournals(rt: DockerRuntime, logger: Logger): Promise<void> {
  const snapshots = rt.options.snapshots?.();
  if (!snapshots) return;
  for (const entry of snapshots.journals()) {
    try {
      const info = await inspectOrUndefined(rt.docker, entry.containerId);
      if (info && !parseOldAsideName(info.Name)) await snapshots.setJournal(entry.containerId, undefined);
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'could not check a snapshot journal entry');
    }
  }
}
