// Run summaries in the database (docs/state.md#run-history): one row a run, the newest 10,000 kept, paged
// by their start for GET /v1/history; the core's in-memory history is given the newest 500 at start-up.
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { HistoryEntry } from '../../core/index.js';
import type { HistoryQuery, Page, PageQuery } from './contracts.js';
import { decodeCursor, pageOf } from './pages.js';
import type { Transactions } from './transactions.js';

export const RUNS_CAPACITY = 10_000;
/** What the core's history holds (core/history.ts): what start-up gives it back. */
export const RUNS_RESTORED = 500;

type StoredRun = Omit<HistoryEntry, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string };

interface Row {
  seq: number;
  started_ms: number;
  body: string;
}

function entryOf(row: Row): HistoryEntry {
  const stored = JSON.parse(row.body) as StoredRun;
  return { ...stored, startedAt: new Date(stored.startedAt), finishedAt: new Date(stored.finishedAt) };
}

export class RunsTable {
  readonly #insert;

  constructor(
    readonly db: DatabaseSync,
    readonly tx: Transactions,
  ) {
    this.#insert = db.prepare('INSERT INTO runs (started_ms, body) VALUES (?, ?)');
  }

  /** Inserts in the tick's transaction (or the migration's). */
  insert(entry: HistoryEntry): number {
    const stored: StoredRun = { ...entry, startedAt: entry.startedAt.toISOString(), finishedAt: entry.finishedAt.toISOString() };
    return Number(this.#insert.run(entry.startedAt.getTime(), JSON.stringify(stored)).lastInsertRowid);
  }

  append(entry: HistoryEntry): void {
    this.tx.write(() => {
      const seq = this.insert(entry);
      if (seq % (RUNS_CAPACITY / 10) === 0) {
        this.db.prepare('DELETE FROM runs WHERE seq <= ?').run(seq - RUNS_CAPACITY);
      }
    });
  }

  /** The newest `RUNS_RESTORED`, oldest first. */
  newest(): HistoryEntry[] {
    const rows = this.db.prepare('SELECT seq, started_ms, body FROM runs ORDER BY started_ms DESC, seq DESC LIMIT ?').all(RUNS_RESTORED) as unknown as Row[];
    return rows.reverse().map(entryOf);
  }

  page(query: HistoryQuery & PageQuery): Page<HistoryEntry> {
    const clauses: string[] = [];
    const params: SQLInputValue[] = [];
    if (query.since !== undefined) {
      clauses.push('started_ms >= ?');
      params.push(query.since);
    }
    if (query.until !== undefined) {
      clauses.push('started_ms <= ?');
      params.push(query.until);
    }
    if (query.cursor !== undefined) {
      const [ms, seq] = decodeCursor(query.cursor, 2);
      clauses.push('(started_ms, seq) < (?, ?)');
      params.push(ms as number, seq as number);
    }
    const where = clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
    const rows = this.db
      .prepare(`SELECT seq, started_ms, body FROM runs ${where} ORDER BY started_ms DESC, seq DESC LIMIT ?`)
      .all(...params, query.limit + 1) as unknown as Row[];
    return pageOf(rows, query.limit, (row) => [row.started_ms, row.seq], entryOf);
  }
}
