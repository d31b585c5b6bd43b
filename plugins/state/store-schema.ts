// The state database's file, pragmas and tables (docs/state.md#the-database). node:sqlite is Node's own
// SQLite (no native build, no download) and loads only here, when the state plugin opens its store.
// WAL with `synchronous=FULL`: a commit is on disk when it returns, a reader never waits for a writer, and a
// process killed mid-write leaves the database as of its last commit (test/state/crash-safety.test.ts).
import type { DatabaseSync } from 'node:sqlite';

export const DATABASE_FILE = 'state.db';
/** Bumped when a table changes shape; a newer file than this code refuses to open. */
export const SCHEMA_VERSION = 1;

/** The container-keyed tables beside the last checks: the same shape, one concern each. */
export const CONTAINER_TABLES = ['previous_images', 'holds', 'failed_candidates'] as const;
export type ContainerTable = (typeof CONTAINER_TABLES)[number];

const TABLES = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
-- A container's last check by runtime id; written is the store's clock (ms) of the last write, for the bound.
CREATE TABLE IF NOT EXISTS last_checks (id TEXT PRIMARY KEY, written INTEGER NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS last_checks_written ON last_checks (written);
${['previous_images', 'holds', 'failed_candidates']
  .map(
    (t) => `CREATE TABLE IF NOT EXISTS ${t} (id TEXT PRIMARY KEY, written INTEGER NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS ${t}_written ON ${t} (written);`,
  )
  .join('\n')}
-- Run summaries, paged newest first by (started_ms, seq).
CREATE TABLE IF NOT EXISTS runs (seq INTEGER PRIMARY KEY, started_ms INTEGER NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS runs_started ON runs (started_ms, seq);
-- The audit trail, paged newest first by (time_ms, seq); filtered by container on its own index.
CREATE TABLE IF NOT EXISTS audit (seq INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, container TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS audit_time ON audit (time_ms, seq);
CREATE INDEX IF NOT EXISTS audit_container ON audit (container, time_ms, seq);
-- A plugin's one record (extension(name)) and its keyed collections (record(collection, key)).
CREATE TABLE IF NOT EXISTS extensions (name TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (seq INTEGER PRIMARY KEY, collection TEXT NOT NULL, key TEXT NOT NULL, body TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS records_key ON records (collection, key);
CREATE INDEX IF NOT EXISTS records_seq ON records (collection, seq);
-- A record's exact-match fields (setRecord's fields): a filtered page is one range of this key, in seq order.
CREATE TABLE IF NOT EXISTS record_fields (collection TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY (collection, name, value, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS record_fields_seq ON record_fields (seq);
-- Volume snapshots (docs/snapshots.md): the index of the tar files under <data-dir>/snapshots/, paged newest
-- first by seq, by container on its own index; the journal of restores a killed process may have left.
CREATE TABLE IF NOT EXISTS snapshots (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, container TEXT NOT NULL, host TEXT NOT NULL, body TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS snapshots_id ON snapshots (id);
CREATE INDEX IF NOT EXISTS snapshots_container ON snapshots (container, host, seq);
CREATE TABLE IF NOT EXISTS snapshot_journal (container_id TEXT PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID;
`;

/** Opens (creating when missing) the database at `file`, or an in-memory one for `:memory:`. */
export function openDatabase(file: string): DatabaseSync {
  const { DatabaseSync: Database } = process.getBuiltinModule('node:sqlite');
  const db = new Database(file);
  try {
    if (file !== ':memory:') {
      db.exec('PRAGMA journal_mode = WAL');
      db.exec('PRAGMA synchronous = FULL');
      db.exec('PRAGMA busy_timeout = 5000');
    }
    // Small pages and cache: a store of 10,000 containers is a few MB, and the footprint counts every one.
    db.exec('PRAGMA cache_size = -2000');
    db.exec('PRAGMA temp_store = MEMORY');
    const version = (db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
    if (version > SCHEMA_VERSION) {
      throw new Error(`${file} was written by a newer Tidewatch (schema ${version}, this one knows ${SCHEMA_VERSION})`);
    }
    db.exec('BEGIN');
    db.exec(TABLES);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    db.exec('COMMIT');
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
