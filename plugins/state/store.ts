// The state store (docs/state.md): one SQLite database, `state.db` in the data directory (store-schema.ts),
// or the same tables in memory without one. Every change is a row written in the tick's transaction
// (transactions.ts), so what a change writes is bounded by what changed, not by the size of the state; reads
// go to the database by key or by index. A check that finds a container as it was keeps only the time in
// memory (written at flush and shutdown): a repeated check of an unchanged fleet writes nothing.
import { join } from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { type HistoryEntry, type Logger } from '../../core/index.js';
import type {
  AuditEntry,
  AuditQuery,
  AuditRecord,
  FailedCandidate,
  HistoryQuery,
  Hold,
  KeyedRecord,
  LastCheck,
  Page,
  PageQuery,
  PreviousImage,
  RecordFields,
  RetainedImage,
  StateStore,
} from './contracts.js';
import { AuditTable } from './audit-table.js';
import { migrateJsonState } from './migrate-json.js';
import { decodeCursor } from './pages.js';
import { RecordsTable } from './records-table.js';
import { RunsTable } from './runs-table.js';
import { CONTAINER_TABLES, DATABASE_FILE, openDatabase, type ContainerTable } from './store-schema.js';
import { Transactions } from './transactions.js';

/**
 * Containers whose state is kept. The JSON snapshot held 10,000 in memory and rewrote them all with each
 * change; rows cost nothing until read, so the bound is only against ids of containers long gone.
 */
export const CONTAINER_CAPACITY = 200_000;

const noop = () => undefined;
/** A page of a list that has nothing yet. */
const pageOfNothing = (query: PageQuery, parts = 2): Page<never> => {
  if (query.cursor !== undefined) decodeCursor(query.cursor, parts);
  return { entries: [] };
};
const silentLogger: Logger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, child: () => silentLogger };

export interface StateStoreOptions {
  /** The data directory; without it the database lives in memory. */
  readonly dir?: string;
  readonly logger?: Logger;
  readonly auditCapacity?: number;
}

interface KeyedStatements {
  readonly get: StatementSync;
  readonly put: StatementSync;
  readonly remove: StatementSync;
  readonly move: StatementSync;
}

function statements(db: DatabaseSync, table: string): KeyedStatements {
  return {
    get: db.prepare(`SELECT body FROM ${table} WHERE id = ?`),
    put: db.prepare(`INSERT INTO ${table} (id, written, body) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET written = excluded.written, body = excluded.body`),
    remove: db.prepare(`DELETE FROM ${table} WHERE id = ?`),
    move: db.prepare(`UPDATE OR REPLACE ${table} SET id = ? WHERE id = ?`),
  };
}

/** A last check without its time: what a repeated check compares. */
function content(check: LastCheck): string {
  return JSON.stringify({ ...check, checkedAt: '' });
}

/** The open database and its prepared statements. */
interface Opened {
  readonly db: DatabaseSync;
  readonly tx: Transactions;
  readonly checks: KeyedStatements;
  readonly tables: Record<ContainerTable, KeyedStatements>;
  readonly audit: AuditTable;
  readonly runs: RunsTable;
  readonly records: RecordsTable;
}

export class SqliteStateStore implements StateStore {
  /**
   * Opened at once on disk; in memory with the first write: until something is recorded an in-memory store
   * is empty, and an idle service without a data directory never loads SQLite (docs/performance.md#state).
   */
  #opened: Opened | undefined;
  readonly #extensions = new Map<string, unknown>();
  /** Times of checks that changed nothing, by container id, until flush writes them. */
  readonly #checkedAt = new Map<string, string>();
  #writes = 0;

  constructor(
    readonly dir: string | undefined,
    readonly logger: Logger,
    readonly auditCapacity?: number,
  ) {}

  /** Opens the database (the data directory's, or one in memory) with its statements. */
  open(): Opened {
    if (this.#opened) return this.#opened;
    const db = openDatabase(this.dir ? join(this.dir, DATABASE_FILE) : ':memory:');
    const tx = new Transactions(db, this.logger);
    this.#opened = {
      db,
      tx,
      checks: statements(db, 'last_checks'),
      tables: Object.fromEntries(CONTAINER_TABLES.map((t) => [t, statements(db, t)])) as Record<ContainerTable, KeyedStatements>,
      audit: new AuditTable(db, tx, this.auditCapacity),
      runs: new RunsTable(db, tx),
      records: new RecordsTable(db, tx),
    };
    this.reloadExtensions();
    return this.#opened;
  }

  get db(): DatabaseSync {
    return this.open().db;
  }

  /** Plugins' records are read whole by `extension`: held in memory, read once at open (and after a migration). */
  reloadExtensions(): void {
    this.#extensions.clear();
    for (const row of this.db.prepare('SELECT name, body FROM extensions').all() as { name: string; body: string }[]) {
      this.#extensions.set(row.name, JSON.parse(row.body));
    }
  }

  /** The tables the JSON migration fills (migrate-json.ts), inside its one transaction. */
  get tables(): { audit: AuditTable; runs: RunsTable } {
    const { audit, runs } = this.open();
    return { audit, runs };
  }

  /** A read: an in-memory store not opened yet holds nothing. */
  #read<T>(read: (opened: Opened) => T): T | undefined {
    return this.#opened ? read(this.#opened) : undefined;
  }

  #get<T>(statements: KeyedStatements, id: string): T | undefined {
    const row = statements.get.get(id) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as T) : undefined;
  }

  #put(statements: KeyedStatements, id: string, value: unknown): void {
    this.open().tx.write(() => {
      statements.put.run(id, Date.now(), JSON.stringify(value));
      if (++this.#writes % 1000 === 0) this.#bound();
    });
  }

  /** Past the bound, the rows written longest ago go (ids of containers long gone). */
  #bound(): void {
    for (const table of ['last_checks', ...CONTAINER_TABLES]) {
      const { n } = this.db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number };
      if (n > CONTAINER_CAPACITY) {
        this.db.prepare(`DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} ORDER BY written LIMIT ?)`).run(n - CONTAINER_CAPACITY);
      }
    }
  }

  lastCheck(id: string): LastCheck | undefined {
    const check = this.#read((o) => this.#get<LastCheck>(o.checks, id));
    const at = this.#checkedAt.get(id);
    return check && at ? { ...check, checkedAt: at } : check;
  }

  recordCheck(id: string, check: LastCheck): void {
    const { checks } = this.open();
    const stored = this.#get<LastCheck>(checks, id);
    if (stored && content(stored) === content(check)) {
      this.#checkedAt.set(id, check.checkedAt);
      return;
    }
    this.#checkedAt.delete(id);
    this.#put(checks, id, check);
  }

  previousImage(id: string): PreviousImage | undefined {
    return this.#read((o) => this.#get<PreviousImage>(o.tables.previous_images, id));
  }

  setPreviousImage(id: string, previous: PreviousImage | undefined): void {
    this.#set('previous_images', id, previous);
  }

  hold(id: string): Hold | undefined {
    return this.#read((o) => this.#get<Hold>(o.tables.holds, id));
  }

  setHold(id: string, hold: Hold | undefined): void {
    this.#set('holds', id, hold);
  }

  failedCandidate(id: string): FailedCandidate | undefined {
    return this.#read((o) => this.#get<FailedCandidate>(o.tables.failed_candidates, id));
  }

  setFailedCandidate(id: string, failed: FailedCandidate | undefined): void {
    this.#set('failed_candidates', id, failed);
  }

  #set(table: ContainerTable, id: string, value: unknown): void {
    const { tables, tx } = this.open();
    const statements = tables[table];
    if (value !== undefined) this.#put(statements, id, value);
    else tx.write(() => statements.remove.run(id));
  }

  followReplacement(oldId: string, newId: string): void {
    if (oldId === newId) return;
    // The new container takes what the old one had; what the old one lacked, the new one keeps.
    this.#read(({ tx, tables }) =>
      tx.write(() => {
        for (const table of CONTAINER_TABLES) tables[table].move.run(newId, oldId);
      }),
    );
  }

  retainedImages(): readonly RetainedImage[] {
    const row = this.#read((o) => o.db.prepare("SELECT value FROM meta WHERE key = 'retained_images'").get() as { value: string } | undefined);
    return row ? (JSON.parse(row.value) as RetainedImage[]) : [];
  }

  setRetainedImages(images: readonly RetainedImage[]): void {
    const { tx, db } = this.open();
    tx.write(() =>
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('retained_images', ?)").run(JSON.stringify(images)),
    );
  }

  history(): readonly HistoryEntry[] {
    return this.#read((o) => o.runs.newest()) ?? [];
  }

  async historyPage(query: HistoryQuery & PageQuery): Promise<Page<HistoryEntry>> {
    return this.#read((o) => o.runs.page(query)) ?? pageOfNothing(query);
  }

  recordHistory(entry: HistoryEntry): void {
    this.open().runs.append(entry);
  }

  async appendAudit(record: AuditRecord): Promise<AuditEntry> {
    return this.open().audit.append(record);
  }

  async audit(query: AuditQuery = {}): Promise<AuditEntry[]> {
    return this.#read((o) => o.audit.query(query)) ?? [];
  }

  async auditPage(query: Omit<AuditQuery, 'limit'> & PageQuery): Promise<Page<AuditEntry>> {
    return this.#read((o) => o.audit.page(query)) ?? pageOfNothing(query);
  }

  extension(name: string): unknown {
    return this.#extensions.get(name);
  }

  setExtension(name: string, value: unknown): void {
    if (value === undefined) {
      if (!this.#extensions.delete(name)) return;
      const { tx, db } = this.open();
      tx.write(() => db.prepare('DELETE FROM extensions WHERE name = ?').run(name));
      return;
    }
    const { tx, db } = this.open();
    this.#extensions.set(name, value);
    tx.write(() => db.prepare('INSERT OR REPLACE INTO extensions (name, body) VALUES (?, ?)').run(name, JSON.stringify(value)));
  }

  record(collection: string, key: string): unknown {
    return this.#read((o) => o.records.get(collection, key));
  }

  setRecord(collection: string, key: string, value: unknown, fields?: RecordFields): void {
    // Removing from an in-memory store never opened removes nothing: it need not load SQLite for that.
    if (value === undefined && !this.#opened) return;
    this.open().records.set(collection, key, value, fields);
  }

  recordsPage(collection: string, query: PageQuery & { readonly where?: RecordFields }): Page<KeyedRecord> {
    return this.#read((o) => o.records.page(collection, query)) ?? pageOfNothing(query, 1);
  }

  async flush(): Promise<void> {
    const opened = this.#opened;
    if (!opened) return;
    if (this.#checkedAt.size > 0) {
      opened.tx.write(() => {
        for (const [id, at] of this.#checkedAt) {
          const check = this.#get<LastCheck>(opened.checks, id);
          if (check) opened.checks.put.run(id, Date.now(), JSON.stringify({ ...check, checkedAt: at }));
        }
      });
      this.#checkedAt.clear();
    }
    opened.tx.commitNow();
  }

  /** Commits and closes; the store is not used after. */
  async close(): Promise<void> {
    await this.flush();
    const opened = this.#opened;
    if (!opened) return;
    if (this.dir) opened.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    opened.db.close();
    this.#opened = undefined;
  }
}

/** Opens the store under `dir` (created by the caller), migrating its JSON files once, or an in-memory one. */
export async function openStateStore(options: StateStoreOptions = {}): Promise<SqliteStateStore> {
  const logger = options.logger ?? silentLogger;
  const { dir } = options;
  const store = new SqliteStateStore(dir, logger, options.auditCapacity);
  if (dir) {
    store.open();
    await migrateJsonState(dir, store, logger);
  }
  return store;
}
