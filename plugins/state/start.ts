// The state plugin's start-up (docs/state.md): open the store, give the core's history what was saved,
// and tap the runs: checks as each run reports them, changes once a run's cleanup is done, holds at the
// gate, rollbacks at the staleness check.
import { mkdir } from '../../contracts/shared/node-fs.js';
import { type TidewatchCore } from '../../core/index.js';
import { DATA_DIR_HANDOVER, ROLLBACKS, STATE_STORE } from './contracts.js';
import { SNAPSHOTS, type SnapshotSettings } from './snapshot-contracts.js';
import { SnapshotService } from './snapshot-service.js';
import { tapAudit } from './audit-taps.js';
import { DataDirLock } from './data-dir-lock.js';
import { recordChecks } from './check-state.js';
import { tapFailedCandidateGate } from './failed-candidates.js';
import { tapHoldGate } from './hold-gate.js';
import { RollbackRuns } from './rollback.js';
import { openStateStore } from './store.js';

export async function applyState(core: TidewatchCore, dataDir: string, snapshotSettings: SnapshotSettings): Promise<void> {
  const logger = core.logger.child({ plugin: 'state' });
  // One process per data directory, before anything in it is read (docs/state.md#one-process-per-data-directory).
  let lock: DataDirLock | undefined;
  if (dataDir) {
    await mkdir(dataDir, { recursive: true });
    lock = new DataDirLock(dataDir, logger);
    await lock.acquire();
  }
  const store = await openStateStore({ dir: dataDir || undefined, logger });
  core.services.provide(STATE_STORE, store);
  const snapshots = new SnapshotService(store, snapshotSettings, logger);
  core.services.provide(SNAPSHOTS, snapshots);
  // A snapshot a killed process was writing is dropped; a restore it began is finished by the runtime's repair.
  const swept = await snapshots.files?.sweep();
  if (swept?.length) logger.warn({ removed: swept }, 'unfinished snapshots removed');
  if (lock) {
    const held = lock;
    core.services.provide(DATA_DIR_HANDOVER, {
      async handOver() {
        // Committed, and left open: SQLite lets the successor open the same file, and a successor that fails
        // hands the directory back (takeBack) to a process whose store still works.
        await store.flush();
        await held.release();
        logger.info({ dir: dataDir }, 'data directory handed over to the successor');
      },
      takeBack: () => held.reclaim(),
    });
  }
  core.history.restore(store.history());
  core.history.subscribe((entry) => store.recordHistory(entry));
  core.hooks.event.tap('state', (event) => {
    if (event.type === 'run_report') recordChecks(store, event.data);
  });
  const rollbacks = new RollbackRuns(core, store, snapshots);
  core.services.provide(ROLLBACKS, rollbacks);
  rollbacks.tap();
  const seen = tapHoldGate(core, store, rollbacks);
  tapFailedCandidateGate(core, store, rollbacks);
  tapAudit(core, store, rollbacks, seen);
  core.onClose(async () => {
    // After a self-update's hand-over the data directory is the successor's: nothing more is written to it.
    if (lock && !lock.held) return;
    await store.close();
    await lock?.release();
  });
  if (store.dir) logger.info({ dir: store.dir }, 'state kept in the data directory');
}
