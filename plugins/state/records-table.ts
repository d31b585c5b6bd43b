// Plugins' keyed collections in the database (docs/state.md#plugins-records): one row a record, in the order it
// was first set, with the few exact-match fields the plugin names for it (`fields`) on an index of their own,
// so a page of "the approvals still pending" or "the live tokens" is one range read on that index, newest
// first, never the whole collection. Setting a record again keeps its place; its fields are replaced.
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { KeyedRecord, Page, PageQuery, RecordFields } from './contracts.js';
import { decodeCursor, pageOf } from './pages.js';
import type { Transactions } from './transactions.js';

interface Row {
  seq: number;
  key: string;
  body: string;
}

/** Filters a page may name at once: each is one probe of the fields' index per candidate row. */
export const MAX_RECORD_FILTERS = 4;

export class RecordsTable {
  readonly #get: StatementSync;
  readonly #seq: StatementSync;
  readonly #insert: StatementSync;
  readonly #update: StatementSync;
  readonly #remove: StatementSync;
  readonly #removeFields: StatementSync;
  readonly #insertField: StatementSync;

  constructor(
    readonly db: DatabaseSync,
    readonly tx: Transactions,
  ) {
    this.#get = db.prepare('SELECT body FROM records WHERE collection = ? AND key = ?');
    this.#seq = db.prepare('SELECT seq FROM records WHERE collection = ? AND key = ?');
    this.#insert = db.prepare('INSERT INTO records (collection, key, body) VALUES (?, ?, ?)');
    this.#update = db.prepare('UPDATE records SET body = ? WHERE seq = ?');
    this.#remove = db.prepare('DELETE FROM records WHERE seq = ?');
    this.#removeFields = db.prepare('DELETE FROM record_fields WHERE seq = ?');
    this.#insertField = db.prepare('INSERT INTO record_fields (collection, name, value, seq) VALUES (?, ?, ?, ?)');
  }

  get(collection: string, key: string): unknown {
    const row = this.#get.get(collection, key) as { body: string } | undefined;
    return row ? JSON.parse(row.body) : undefined;
  }

  /** Sets (undefined removes) one record and its fields, in the tick's transaction. */
  set(collection: string, key: string, value: unknown, fields: RecordFields = {}): void {
    this.tx.write(() => {
      const row = this.#seq.get(collection, key) as { seq: number } | undefined;
      if (row) this.#removeFields.run(row.seq);
      if (value === undefined) {
        if (row) this.#remove.run(row.seq);
        return;
      }
      const body = JSON.stringify(value);
      let seq: number;
      if (row) {
        this.#update.run(body, row.seq);
        seq = row.seq;
      } else {
        seq = Number(this.#insert.run(collection, key, body).lastInsertRowid);
      }
      for (const [name, fieldValue] of Object.entries(fields)) this.#insertField.run(collection, name, fieldValue, seq);
    });
  }

  /**
   * A page, newest first across pages. Without filters it reads the records' (collection, seq) index; with
   * them, the first filter's range of the fields' index (in seq order, so no sort), each other one probed.
   */
  page(collection: string, query: PageQuery & { readonly where?: RecordFields }): Page<KeyedRecord> {
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 1);
    const filters = Object.entries(query.where ?? {});
    if (filters.length > MAX_RECORD_FILTERS) throw new RangeError(`at most ${MAX_RECORD_FILTERS} filters`);
    const params: SQLInputValue[] = [];
    let sql: string;
    const [first, ...others] = filters;
    if (first === undefined) {
      sql = 'SELECT seq, key, body FROM records WHERE collection = ?';
      params.push(collection);
      if (cursor) {
        sql += ' AND seq < ?';
        params.push(cursor[0] as number);
      }
      sql += ' ORDER BY seq DESC LIMIT ?';
    } else {
      // CROSS JOIN keeps the fields' index as the outer loop: its rows come in seq order for this one value.
      sql = 'SELECT r.seq AS seq, r.key AS key, r.body AS body FROM record_fields f CROSS JOIN records r ON r.seq = f.seq' +
        ' WHERE f.collection = ? AND f.name = ? AND f.value = ?';
      params.push(collection, first[0], first[1]);
      if (cursor) {
        sql += ' AND f.seq < ?';
        params.push(cursor[0] as number);
      }
      for (const [name, value] of others) {
        sql += ' AND EXISTS (SELECT 1 FROM record_fields g WHERE g.collection = ? AND g.name = ? AND g.value = ? AND g.seq = f.seq)';
        params.push(collection, name, value);
      }
      sql += ' ORDER BY f.seq DESC LIMIT ?';
    }
    params.push(query.limit + 1);
    const rows = this.db.prepare(sql).all(...params) as unknown as Row[];
    return pageOf(rows, query.limit, (row) => [row.seq], (row) => ({ key: row.key, value: JSON.parse(row.body) as unknown }));
  }
}
