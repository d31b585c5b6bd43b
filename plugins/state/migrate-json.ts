// The JSON files of earlier releases (docs/state.md#from-the-json-files): `state.json`, the snapshot of
// everything but the audit trail, and `audit.jsonl`, one audit entry a line. At the first start with the
// database they are read once, written into it in one transaction, and renamed `*.migrated` (kept, not
// deleted, in case someone goes back a release). A crash before the commit migrates again at the next start;
// after it, the `json_migrated` mark says it is done.
import { openHandle as open, rename, stat } from '../../contracts/shared/node-fs.js';
import { join } from 'node:path';
import { errorMessage, type HistoryEntry, type Logger } from '../../core/index.js';
import { readJsonFile } from '../../contracts/shared/atomic-file.js';
import {
  containerKey,
  targetKey,
  type AuditEntry,
  type FailedCandidate,
  type Hold,
  type LastCheck,
  type PreviousImage,
  type RetainedImage,
} from './contracts.js';
import type { SqliteStateStore } from './store.js';

export const STATE_FILE = 'state.json';
export const AUDIT_FILE = 'audit.jsonl';

type StoredHistory = Omit<HistoryEntry, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string };

interface Snapshot {
  /** 2: previous images and holds by container id (docs/state.md#identity); 1 kept them by name. */
  readonly version: 1 | 2;
  readonly checks: Record<string, LastCheck>;
  readonly previous: Record<string, PreviousImage>;
  readonly holds: Record<string, Hold>;
  readonly failed?: Record<string, FailedCandidate>;
  readonly retained: RetainedImage[];
  readonly history: StoredHistory[];
  readonly extensions?: Record<string, unknown>;
}

function isSnapshot(value: unknown): value is Snapshot {
  const v = value as Partial<Snapshot> | null;
  return (
    typeof v === 'object' && v !== null && (v.version === 1 || v.version === 2) && typeof v.checks === 'object' &&
    typeof v.previous === 'object' && typeof v.holds === 'object' && Array.isArray(v.retained) && Array.isArray(v.history) &&
    (v.failed === undefined || typeof v.failed === 'object')
  );
}

function isEntry(value: unknown): value is AuditEntry {
  const v = value as Partial<AuditEntry> | null;
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.time === 'string' && typeof v.action === 'string';
}

/**
 * Version 1 kept previous images and holds by name (`host|name`). Each goes to the container of that name
 * (and engine) the earlier version checked last; an entry whose name no check knows is dropped
 * (docs/state.md#identity).
 */
function byId<T>(snapshot: Snapshot, entries: Record<string, T>): [string, T][] {
  if (snapshot.version === 2) return Object.entries(entries);
  const newest = new Map<string, { id: string; at: string }>();
  for (const [id, check] of Object.entries(snapshot.checks)) {
    const key = containerKey(targetKey(check));
    const seen = newest.get(key);
    if (!seen || check.checkedAt > seen.at) newest.set(key, { id, at: check.checkedAt });
  }
  const out: [string, T][] = [];
  for (const [key, entry] of Object.entries(entries)) {
    const owner = newest.get(key);
    if (owner) out.push([owner.id, entry]);
  }
  return out;
}

/** The audit file's whole entries, oldest first; a torn or unreadable line (a kill mid-append) is skipped. */
async function readAudit(file: string, logger: Logger): Promise<AuditEntry[] | undefined> {
  const entries: AuditEntry[] = [];
  let skipped = 0;
  // node:readline (and node:fs/promises, whose FileHandle reads the file) load only when there is an audit.jsonl
  // to migrate (docs/performance.md#memory): a stat says whether there is one.
  const present = await stat(file).then(
    () => true,
    (err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    },
  );
  if (!present) return undefined;
  const handle = await open(file, 'r').catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  });
  if (!handle) return undefined;
  try {
    const lines = process.getBuiltinModule('node:readline').createInterface({ input: handle.createReadStream({ encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const value: unknown = JSON.parse(line);
        if (isEntry(value)) entries.push(value);
        else skipped++;
      } catch {
        skipped++;
      }
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
  if (skipped > 0) logger.warn({ file, skipped }, 'audit lines that could not be read were left out of the migration');
  return entries;
}

export async function migrateJsonState(dir: string, store: SqliteStateStore, logger: Logger): Promise<void> {
  const { db } = store;
  if (db.prepare("SELECT 1 FROM meta WHERE key = 'json_migrated'").get()) return;
  const stateFile = join(dir, STATE_FILE);
  const auditFile = join(dir, AUDIT_FILE);
  const snapshot = await readJsonFile(stateFile, logger, isSnapshot);
  const audit = await readAudit(auditFile, logger);
  const put = (table: string, id: string, value: unknown) =>
    db.prepare(`INSERT OR REPLACE INTO ${table} (id, written, body) VALUES (?, ?, ?)`).run(id, Date.now(), JSON.stringify(value));
  db.exec('BEGIN IMMEDIATE');
  try {
    if (snapshot) {
      for (const [id, check] of Object.entries(snapshot.checks)) put('last_checks', id, check);
      for (const [id, previous] of byId(snapshot, snapshot.previous)) put('previous_images', id, previous);
      for (const [id, hold] of byId(snapshot, snapshot.holds)) put('holds', id, hold);
      for (const [id, failed] of Object.entries(snapshot.failed ?? {})) put('failed_candidates', id, failed);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('retained_images', ?)").run(JSON.stringify(snapshot.retained));
      for (const run of snapshot.history) {
        store.tables.runs.insert({ ...run, startedAt: new Date(run.startedAt), finishedAt: new Date(run.finishedAt) });
      }
      for (const [name, value] of Object.entries(snapshot.extensions ?? {})) {
        db.prepare('INSERT OR REPLACE INTO extensions (name, body) VALUES (?, ?)').run(name, JSON.stringify(value));
      }
    }
    for (const entry of audit ?? []) store.tables.audit.insert(entry);
    store.tables.audit.trim();
    db.prepare("INSERT INTO meta (key, value) VALUES ('json_migrated', ?)").run(new Date().toISOString());
    db.exec('COMMIT');
  } catch (err) {
    db.exec('ROLLBACK');
    throw err;
  }
  store.reloadExtensions();
  for (const [file, found] of [[stateFile, snapshot], [auditFile, audit]] as const) {
    if (found === undefined) continue;
    await rename(file, `${file}.migrated`).catch((err: unknown) => logger.warn({ file, err: errorMessage(err) }, 'could not rename a migrated file'));
  }
  if (snapshot || audit) {
    logger.info(
      { containers: Object.keys(snapshot?.checks ?? {}).length, runs: snapshot?.history.length ?? 0, audit: audit?.length ?? 0 },
      'state moved from the JSON files into the database',
    );
  }
}
