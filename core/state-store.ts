// The state store (docs/state.md): everything but the audit trail in one small JSON snapshot,
// `state.json`, rewritten atomically (atomic-file.ts) shortly after each change, and the audit trail as
// JSON lines beside it (audit-log.ts). Measured against SQLite (node:sqlite, Node 22+ only) and one JSON
// file holding the audit trail too, this costs the least memory and start-up: the snapshot of 1,000
// containers is about 250 kB and parses in a few milliseconds, and the audit trail is never loaded.
// With no data directory the same store keeps everything in memory.
import { join } from 'node:path';
import { FileAudit, MemoryAudit, type AuditTrail } from './audit-log.js';
import { readJsonFile, writeFileAtomic } from './atomic-file.js';
import { errorMessage } from './errors.js';
import type { HistoryEntry } from './history.js';
import { silentLogger } from './logger.js';
import type {
  AuditEntry,
  AuditQuery,
  AuditRecord,
  ContainerKey,
  FailedCandidate,
  Hold,
  LastCheck,
  PreviousImage,
  RetainedImage,
  StateStore,
} from './state.js';
import { findingLines, readFinding } from './findings.js';
import { DOCUMENTED_FINDING_KEYS, FINDINGS } from './known-findings.js';
import { bareDigest } from './repo-digest.js';
import type { CheckResult, Logger, Staleness, Target } from './types.js';

export const STATE_FILE = 'state.json';
export const AUDIT_FILE = 'audit.jsonl';
/** Containers whose last check is kept: the oldest answers go first, so the map cannot grow without bound. */
export const LAST_CHECKS_CAPACITY = 10_000;

/** The tag policy's fields of a staleness answer (docs/tags.md), only those it has, under the names kept. */
function tagsOf(staleness: Staleness): LastCheck['tags'] | undefined {
  const facts = readFinding(staleness, FINDINGS.tags);
  const kept = { tagPolicy: facts?.policy, currentTag: facts?.currentTag, latestTag: staleness.latestTag, updateKind: facts?.updateKind, note: staleness.note };
  const tags = Object.fromEntries(Object.entries(kept).filter(([, value]) => value));
  return Object.keys(tags).length > 0 ? (tags as LastCheck['tags']) : undefined;
}

/** The one line of every finding the HTTP API has no field of its own for (docs/plugins.md#findings). */
function otherFindings(staleness: Staleness): LastCheck['findings'] {
  const lines = findingLines(staleness, DOCUMENTED_FINDING_KEYS);
  return lines.length > 0 ? Object.fromEntries(lines.map((line) => [line.key, line.summary])) : undefined;
}

/** Registry errors can carry a whole answer body: a last check keeps the first 200 characters of why. */
function lastCheckError(error: string): string {
  return error.length > 200 ? `${error.slice(0, 199)}…` : error;
}

/**
 * A check's result as a container's last check (docs/state.md#last-checks): what the state store keeps, and
 * what the HTTP API keeps in memory when there is no store.
 */
export function lastCheckOf({ target, staleness, checkedAt }: CheckResult): LastCheck {
  const tags = tagsOf(staleness);
  const findings = otherFindings(staleness);
  const latestVersion = readFinding(staleness, FINDINGS.version);
  const releaseNotes = readFinding(staleness, FINDINGS.releaseNotes);
  return {
    ...(tags ? { tags } : {}),
    name: target.name,
    ...(target.host ? { host: target.host } : {}),
    updateAvailable: staleness.stale && !staleness.error,
    latestDigest: staleness.latestDigest ? bareDigest(staleness.latestDigest) : '',
    checkedAt: checkedAt.toISOString(),
    ...(staleness.error ? { error: lastCheckError(staleness.error) } : {}),
    // Only an update has a version to go to and notes to read (docs/versions.md).
    ...(staleness.stale && !staleness.error && latestVersion ? { latestVersion } : {}),
    ...(staleness.stale && !staleness.error && releaseNotes ? { releaseNotes } : {}),
    ...(findings ? { findings } : {}),
  };
}
export const HISTORY_CAPACITY = 500;

type StoredHistory = Omit<HistoryEntry, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string };

/** Previous images, holds and failed candidates kept: like last checks, the oldest go first past the bound. */
export const CONTAINER_STATE_CAPACITY = LAST_CHECKS_CAPACITY;

interface Snapshot {
  /** 2: previous images and holds by container id (docs/state.md#identity); 1 kept them by name. */
  readonly version: 1 | 2;
  readonly checks: Record<string, LastCheck>;
  readonly previous: Record<string, PreviousImage>;
  readonly holds: Record<string, Hold>;
  readonly failed?: Record<string, FailedCandidate>;
  readonly retained: RetainedImage[];
  readonly history: StoredHistory[];
  /** Plugins' own records (absent in snapshots written before they existed). */
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

/** The name (and engine) a person gives for a target (docs/hosts.md). */
export function targetKey(target: Pick<Target, 'name' | 'host'>): ContainerKey {
  return { name: target.name, ...(target.host ? { host: target.host } : {}) };
}

export function containerKey(key: ContainerKey): string {
  return key.host ? `${key.host}|${key.name}` : key.name;
}

/**
 * Version 1 kept previous images and holds by name (`host|name`). Each goes to the container of that name
 * (and engine) the earlier version checked last: the one it had updated or rolled back, unless the name
 * changed hands since; an entry whose name no check knows is dropped (docs/state.md#identity).
 */
function byIdFromNames<T>(entries: Record<string, T>, checks: ReadonlyMap<string, LastCheck>): Map<string, T> {
  const newest = new Map<string, { id: string; at: string }>();
  for (const [id, check] of checks) {
    const key = containerKey(targetKey(check));
    const seen = newest.get(key);
    if (!seen || check.checkedAt > seen.at) newest.set(key, { id, at: check.checkedAt });
  }
  const out = new Map<string, T>();
  for (const [key, entry] of Object.entries(entries)) {
    const owner = newest.get(key);
    if (owner) out.set(owner.id, entry);
  }
  return out;
}

/** A bounded map: re-setting a key moves it to the end, and past `capacity` the oldest go first. */
function setBounded<T>(map: Map<string, T>, key: string, value: T, capacity: number): void {
  map.delete(key);
  map.set(key, value);
  for (const old of map.keys()) {
    if (map.size <= capacity) break;
    map.delete(old);
  }
}

export interface StateStoreOptions {
  /** The data directory; without it nothing is written. */
  readonly dir?: string;
  readonly logger?: Logger;
  readonly auditCapacity?: number;
}

class Store implements StateStore {
  readonly #checks = new Map<string, LastCheck>();
  readonly #previous = new Map<string, PreviousImage>();
  readonly #holds = new Map<string, Hold>();
  readonly #failed = new Map<string, FailedCandidate>();
  #retained: RetainedImage[] = [];
  #history: HistoryEntry[] = [];
  readonly #extensions = new Map<string, unknown>();
  #dirty = false;
  #saving: Promise<void> = Promise.resolve();
  #scheduled = false;

  constructor(
    readonly dir: string | undefined,
    readonly auditTrail: AuditTrail,
    readonly logger: Logger,
  ) {}

  load(snapshot: Snapshot): void {
    for (const [id, check] of Object.entries(snapshot.checks)) this.#checks.set(id, check);
    const byId = <T>(entries: Record<string, T>) =>
      snapshot.version === 1 ? byIdFromNames(entries, this.#checks) : new Map(Object.entries(entries));
    for (const [id, previous] of byId(snapshot.previous)) this.#previous.set(id, previous);
    for (const [id, hold] of byId(snapshot.holds)) this.#holds.set(id, hold);
    for (const [id, failed] of Object.entries(snapshot.failed ?? {})) this.#failed.set(id, failed);
    this.#retained = snapshot.retained;
    this.#history = snapshot.history.map((h) => ({ ...h, startedAt: new Date(h.startedAt), finishedAt: new Date(h.finishedAt) }));
    for (const [name, value] of Object.entries(snapshot.extensions ?? {})) this.#extensions.set(name, value);
    if (snapshot.version === 1) {
      const kept = this.#previous.size + this.#holds.size;
      const had = Object.keys(snapshot.previous).length + Object.keys(snapshot.holds).length;
      this.logger.info({ kept, dropped: had - kept }, 'state by name moved to state by container id');
      this.#changed();
    }
  }

  extension(name: string): unknown {
    return this.#extensions.get(name);
  }

  setExtension(name: string, value: unknown): void {
    if (value === undefined) {
      if (!this.#extensions.delete(name)) return;
    } else this.#extensions.set(name, value);
    this.#changed();
  }

  lastCheck(id: string): LastCheck | undefined {
    return this.#checks.get(id);
  }

  recordCheck(id: string, check: LastCheck): void {
    // Re-inserting moves the entry to the end: eviction drops the answers not refreshed for longest.
    setBounded(this.#checks, id, check, LAST_CHECKS_CAPACITY);
    this.#changed();
  }

  previousImage(id: string): PreviousImage | undefined {
    return this.#previous.get(id);
  }

  setPreviousImage(id: string, previous: PreviousImage | undefined): void {
    this.#set(this.#previous, id, previous);
  }

  hold(id: string): Hold | undefined {
    return this.#holds.get(id);
  }

  setHold(id: string, hold: Hold | undefined): void {
    this.#set(this.#holds, id, hold);
  }

  failedCandidate(id: string): FailedCandidate | undefined {
    return this.#failed.get(id);
  }

  setFailedCandidate(id: string, failed: FailedCandidate | undefined): void {
    this.#set(this.#failed, id, failed);
  }

  followReplacement(oldId: string, newId: string): void {
    if (oldId === newId) return;
    for (const map of [this.#previous, this.#holds, this.#failed] as Map<string, unknown>[]) {
      const entry = map.get(oldId);
      map.delete(oldId);
      if (entry !== undefined) setBounded(map, newId, entry, CONTAINER_STATE_CAPACITY);
    }
    this.#changed();
  }

  #set<T>(map: Map<string, T>, id: string, value: T | undefined): void {
    if (value !== undefined) setBounded(map, id, value, CONTAINER_STATE_CAPACITY);
    else if (!map.delete(id)) return;
    this.#changed();
  }

  retainedImages(): readonly RetainedImage[] {
    return this.#retained;
  }

  setRetainedImages(images: readonly RetainedImage[]): void {
    this.#retained = [...images];
    this.#changed();
  }

  history(): readonly HistoryEntry[] {
    return this.#history;
  }

  recordHistory(entry: HistoryEntry): void {
    this.#history.push(entry);
    if (this.#history.length > HISTORY_CAPACITY) this.#history.splice(0, this.#history.length - HISTORY_CAPACITY);
    this.#changed();
  }

  appendAudit(record: AuditRecord): Promise<AuditEntry> {
    return this.auditTrail.append(record);
  }

  audit(query: AuditQuery = {}): Promise<AuditEntry[]> {
    return this.auditTrail.query(query);
  }

  async flush(): Promise<void> {
    await this.auditTrail.flush();
    if (this.#dirty) this.#save();
    await this.#saving;
  }

  snapshot(): Snapshot {
    return {
      version: 2,
      checks: Object.fromEntries(this.#checks),
      previous: Object.fromEntries(this.#previous),
      holds: Object.fromEntries(this.#holds),
      failed: Object.fromEntries(this.#failed),
      retained: this.#retained,
      history: this.#history.map((h) => ({ ...h, startedAt: h.startedAt.toISOString(), finishedAt: h.finishedAt.toISOString() })),
      ...(this.#extensions.size > 0 ? { extensions: Object.fromEntries(this.#extensions) } : {}),
    };
  }

  /** Changes within one tick are written together, after the write in progress. */
  #changed(): void {
    if (!this.dir) return;
    this.#dirty = true;
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#dirty) this.#save();
    });
  }

  #save(): void {
    const dir = this.dir as string;
    this.#dirty = false;
    const write = async () => {
      try {
        await writeFileAtomic(join(dir, STATE_FILE), JSON.stringify(this.snapshot()));
      } catch (err) {
        this.logger.error({ dir, err: errorMessage(err) }, 'could not save the state');
      }
    };
    this.#saving = this.#saving.then(write);
  }
}

/** Opens the store under `dir` (created when missing), or an in-memory one without it. */
export async function openStateStore(options: StateStoreOptions = {}): Promise<StateStore> {
  const logger = options.logger ?? silentLogger;
  const { dir } = options;
  if (!dir) return new Store(undefined, new MemoryAudit(options.auditCapacity), logger);
  const audit = await FileAudit.open(join(dir, AUDIT_FILE), logger, options.auditCapacity);
  const store = new Store(dir, audit, logger);
  const snapshot = await readJsonFile(join(dir, STATE_FILE), logger, isSnapshot);
  if (snapshot) store.load(snapshot);
  return store;
}
