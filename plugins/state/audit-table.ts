// The audit trail in the database (docs/state.md#the-audit-trail): one row an entry, appended in its own
// commit before the append resolves, trimmed from the oldest end past its bound, and read by index — a page
// of the newest 100 of a million entries is one range read of 101 rows.
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { AuditEntry, AuditQuery, AuditRecord, Page, PageQuery } from './contracts.js';
import { decodeCursor, pageOf } from './pages.js';
import type { Transactions } from './transactions.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** Entries kept: past it the oldest go, a tenth at a time. */
export const AUDIT_CAPACITY = 100_000;

interface Row {
  seq: number;
  time_ms: number;
  body: string;
}

export function newEntry(record: AuditRecord): AuditEntry {
  const { time, ...rest } = record;
  return { id: nodeCrypto().randomUUID(), time: time ?? new Date().toISOString(), ...rest };
}

function timeOf(entry: AuditEntry): number {
  const ms = Date.parse(entry.time);
  return Number.isNaN(ms) ? 0 : ms;
}

export class AuditTable {
  readonly #insert;
  readonly #count;

  constructor(
    readonly db: DatabaseSync,
    readonly tx: Transactions,
    readonly capacity = AUDIT_CAPACITY,
  ) {
    this.#insert = db.prepare('INSERT INTO audit (time_ms, container, body) VALUES (?, ?, ?)');
    this.#count = db.prepare('SELECT count(*) AS n FROM audit');
  }

  /** Inserts without committing (the migration's one transaction). */
  insert(entry: AuditEntry): number {
    return Number(this.#insert.run(timeOf(entry), entry.container, JSON.stringify(entry)).lastInsertRowid);
  }

  append(record: AuditRecord): AuditEntry {
    const entry = newEntry(record);
    this.tx.write(() => {
      const seq = this.insert(entry);
      // A tenth at a time, so the trim is one range delete every so often, not one row each append.
      if (seq % Math.max(1, Math.floor(this.capacity / 10)) === 0) this.trim();
    });
    this.tx.commitNow();
    return entry;
  }

  trim(): void {
    const { n } = this.#count.get() as { n: number };
    if (n <= this.capacity) return;
    this.db.prepare('DELETE FROM audit WHERE seq IN (SELECT seq FROM audit ORDER BY time_ms, seq LIMIT ?)').run(n - this.capacity);
  }

  #where(query: Omit<AuditQuery, 'limit'>, cursor?: readonly number[]): { sql: string; params: SQLInputValue[] } {
    const clauses: string[] = [];
    const params: SQLInputValue[] = [];
    if (query.container !== undefined) {
      clauses.push('container = ?');
      params.push(query.container);
    }
    if (query.since !== undefined) {
      clauses.push('time_ms >= ?');
      params.push(query.since);
    }
    if (query.until !== undefined) {
      clauses.push('time_ms <= ?');
      params.push(query.until);
    }
    if (cursor) {
      clauses.push('(time_ms, seq) < (?, ?)');
      params.push(cursor[0] as number, cursor[1] as number);
    }
    return { sql: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', params };
  }

  /** Newest first, at most `limit` rows (all without it). */
  #rows(query: Omit<AuditQuery, 'limit'>, limit: number | undefined, cursor?: readonly number[]): Row[] {
    const { sql, params } = this.#where(query, cursor);
    const bound = limit === undefined ? '' : ' LIMIT ?';
    if (limit !== undefined) params.push(limit);
    return this.db.prepare(`SELECT seq, time_ms, body FROM audit ${sql} ORDER BY time_ms DESC, seq DESC${bound}`).all(...params) as unknown as Row[];
  }

  query(query: AuditQuery): AuditEntry[] {
    if (query.limit === 0) return [];
    return this.#rows(query, query.limit)
      .reverse()
      .map((row) => JSON.parse(row.body) as AuditEntry);
  }

  page(query: Omit<AuditQuery, 'limit'> & PageQuery): Page<AuditEntry> {
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 2);
    const rows = this.#rows(query, query.limit + 1, cursor);
    return pageOf(rows, query.limit, (row) => [row.time_ms, row.seq], (row) => JSON.parse(row.body) as AuditEntry);
  }
}
