// SNAPSHOTS, as the state plugin provides it (docs/snapshots.md): the settings, the files (snapshot-files.ts)
// and their index and journal (snapshot-table.ts). Without a data directory there is nowhere to keep a
// snapshot: `available` is false and the runtime skips a container that asks for one.
import { createError, type Logger } from '../../core/index.js';
import type { Page, PageQuery } from './contracts.js';
import type {
  SnapshotJournal,
  SnapshotQuery,
  SnapshotRecord,
  SnapshotSettings,
  SnapshotWriter,
  Snapshots,
} from './snapshot-contracts.js';
import { SnapshotFiles } from './snapshot-files.js';
import { SnapshotTable } from './snapshot-table.js';
import type { SqliteStateStore } from './store.js';

const noDataDir = createError('TW_ERR_SNAPSHOT_NO_DATA_DIR', () => 'snapshot needs --data-dir', 500);

export class SnapshotService implements Snapshots {
  readonly files: SnapshotFiles | undefined;
  #table: SnapshotTable | undefined;
  readonly #requested = new Map<string, { containerId: string; snapshot: SnapshotRecord }>();

  constructor(
    readonly store: SqliteStateStore,
    readonly settings: SnapshotSettings,
    readonly logger: Logger,
  ) {
    this.files = store.dir ? new SnapshotFiles(store.dir, () => this.table, logger) : undefined;
  }

  get table(): SnapshotTable {
    if (!this.#table) {
      const { db } = this.store;
      this.#table = new SnapshotTable(db, this.store.open().tx);
    }
    return this.#table;
  }

  #files(): SnapshotFiles {
    if (!this.files) throw noDataDir();
    return this.files;
  }

  async freeBytes(): Promise<number> {
    return this.#files().freeBytes();
  }

  async begin(meta: { container: string; host?: string; runId: string; imageId: string }): Promise<SnapshotWriter> {
    const files = this.#files();
    const writer = await files.begin(meta, this.settings.maxBytes);
    return {
      ...writer,
      commit: async () => {
        const record = await writer.commit();
        const dropped = await files.retain(meta.container, meta.host, this.settings.retention);
        if (dropped.length > 0) this.logger.info({ container: meta.container, dropped }, 'older snapshots removed (--snapshot-retention)');
        return record;
      },
    };
  }

  get(id: string): SnapshotRecord | undefined {
    return this.files ? this.table.get(id) : undefined;
  }

  latestFor(container: string, host: string | undefined, imageId?: string): SnapshotRecord | undefined {
    if (!this.files) return undefined;
    return this.table.ofContainer(container, host).find((s) => imageId === undefined || s.image_id === imageId);
  }

  read(id: string, volume: string) {
    const record = this.get(id);
    if (!record) throw createError('TW_ERR_SNAPSHOT_MISSING', () => `snapshot ${id} is not in the index`, 500)();
    return this.#files().read(record, volume);
  }

  page(query: SnapshotQuery & PageQuery): Page<SnapshotRecord> {
    return this.files ? this.table.page(query) : { entries: [] };
  }

  journal(containerId: string): SnapshotJournal | undefined {
    return this.files ? this.table.journal(containerId) : undefined;
  }

  async setJournal(containerId: string, entry: SnapshotJournal | undefined): Promise<void> {
    if (!this.files) return;
    if (!this.table.setJournal(containerId, entry)) throw createError('TW_ERR_SNAPSHOT_JOURNAL', () => 'could not write the snapshot journal', 500)();
  }

  journals(): readonly SnapshotJournal[] {
    return this.files ? this.table.journals() : [];
  }

  /** Called by a rollback on demand with `restore=volumes` before its run (rollback.ts). */
  requestRestore(runId: string, containerId: string, snapshot: SnapshotRecord): void {
    this.#requested.set(runId, { containerId, snapshot });
  }

  forgetRestore(runId: string): void {
    this.#requested.delete(runId);
  }

  restoreRequested(runId: string, containerId: string): SnapshotRecord | undefined {
    const wanted = this.#requested.get(runId);
    return wanted?.containerId === containerId ? wanted.snapshot : undefined;
  }
}
