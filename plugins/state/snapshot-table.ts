// The snapshot index in the state database (docs/snapshots.md#where-snapshots-live): one row a snapshot,
// paged newest first by seq, filtered by container (and engine) on its own index; and the restore journal,
// one row a container whose volumes may be mid-restore, committed to disk before a volume is touched.
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { Page, PageQuery } from './contracts.js';
import type { SnapshotJournal, SnapshotQuery, SnapshotRecord } from './snapshot-contracts.js';
import { decodeCursor, pageOf } from './pages.js';
import type { Transactions } from './transactions.js';

interface Row {
  seq: number;
  body: string;
}

const recordOf = (row: Row): SnapshotRecord => JSON.parse(row.body) as SnapshotRecord;

export class SnapshotTable {
  constructor(
    readonly db: DatabaseSync,
    readonly tx: Transactions,
  ) {}

  /** Indexes a snapshot whose files are on disk; on disk itself when this returns. */
  insert(record: SnapshotRecord): void {
    this.tx.write(() =>
      this.db
        .prepare('INSERT INTO snapshots (id, container, host, body) VALUES (?, ?, ?, ?)')
        .run(record.id, record.container, record.host ?? '', JSON.stringify(record)),
    );
    this.tx.commitNow();
  }

  get(id: string): SnapshotRecord | undefined {
    const row = this.db.prepare('SELECT seq, body FROM snapshots WHERE id = ?').get(id) as Row | undefined;
    return row ? recordOf(row) : undefined;
  }

  /** A container's snapshots, newest first. */
  ofContainer(container: string, host: string | undefined): SnapshotRecord[] {
    const rows = this.db
      .prepare('SELECT seq, body FROM snapshots WHERE container = ? AND host = ? ORDER BY seq DESC')
      .all(container, host ?? '') as unknown as Row[];
    return rows.map(recordOf);
  }

  remove(id: string): void {
    this.tx.write(() => this.db.prepare('DELETE FROM snapshots WHERE id = ?').run(id));
    this.tx.commitNow();
  }

  allIds(): Set<string> {
    return new Set((this.db.prepare('SELECT id FROM snapshots').all() as { id: string }[]).map((r) => r.id));
  }

  page(query: SnapshotQuery & PageQuery): Page<SnapshotRecord> {
    const clauses: string[] = [];
    const params: SQLInputValue[] = [];
    if (query.container !== undefined) {
      clauses.push('container = ?');
      params.push(query.container);
    }
    if (query.host !== undefined) {
      clauses.push('host = ?');
      params.push(query.host);
    }
    if (query.cursor !== undefined) {
      clauses.push('seq < ?');
      params.push(decodeCursor(query.cursor, 1)[0] as number);
    }
    const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
    const rows = this.db.prepare(`SELECT seq, body FROM snapshots ${where} ORDER BY seq DESC LIMIT ?`).all(...params, query.limit + 1) as unknown as Row[];
    return pageOf(rows, query.limit, (row) => [row.seq], recordOf);
  }

  journal(containerId: string): SnapshotJournal | undefined {
    const row = this.db.prepare('SELECT body FROM snapshot_journal WHERE container_id = ?').get(containerId) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as SnapshotJournal) : undefined;
  }

  /** Sets (undefined removes) a journal entry, committed before it returns. */
  setJournal(containerId: string, entry: SnapshotJournal | undefined): boolean {
    this.tx.write(() => {
      if (entry) this.db.prepare('INSERT OR REPLACE INTO snapshot_journal (container_id, body) VALUES (?, ?)').run(containerId, JSON.stringify(entry));
      else this.db.prepare('DELETE FROM snapshot_journal WHERE container_id = ?').run(containerId);
    });
    return this.tx.commitNow();
  }

  journals(): SnapshotJournal[] {
    return (this.db.prepare('SELECT body FROM snapshot_journal').all() as { body: string }[]).map((r) => JSON.parse(r.body) as SnapshotJournal);
  }
}
