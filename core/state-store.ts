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
  Hold,
  LastCheck,
  PreviousImage,
  RetainedImage,
  StateStore,
} from './state.js';
import { bareDigest } from './repo-digest.js';
import type { CheckResult, Logger, Staleness, Target } from './types.js';

export const STATE_FILE = 'state.json';
export const AUDIT_FILE = 'audit.jsonl';
/** Containers whose last check is kept: the oldest answers go first, so the map cannot grow without bound. */
export const LAST_CHECKS_CAPACITY = 10_000;

const TAG_KEYS = ['tagPolicy', 'currentTag', 'latestTag', 'updateKind', 'note'] as const;

/** The tag policy's fields of a staleness answer (docs/tags.md), only those it has. */
function tagsOf(staleness: Staleness): LastCheck['tags'] | undefined {
  const tags: Record<string, string> = {};
  for (const key of TAG_KEYS) {
    const value = staleness[key];
    if (value) tags[key] = value;
  }
  return Object.keys(tags).length > 0 ? (tags as LastCheck['tags']) : undefined;
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
  return {
    ...(tags ? { tags } : {}),
    name: target.name,
    ...(target.host ? { host: target.host } : {}),
    updateAvailable: staleness.stale && !staleness.error,
    latestDigest: staleness.latestDigest ? bareDigest(staleness.latestDigest) : '',
    checkedAt: checkedAt.toISOString(),
    ...(staleness.error ? { error: lastCheckError(staleness.error) } : {}),
    // Only an update has a version to go to and notes to read (docs/versions.md).
    ...(staleness.stale && !staleness.error && staleness.latestVersion ? { latestVersion: staleness.latestVersion } : {}),
    ...(staleness.stale && !staleness.error && staleness.releaseNotes ? { releaseNotes: staleness.releaseNotes } : {}),
  };
}
export const HISTORY_CAPACITY = 500;

type StoredHistory = Omit<HistoryEntry, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string };

interface Snapshot {
  readonly version: 1;
  readonly checks: Record<string, LastCheck>;
  readonly previous: Record<string, PreviousImage>;
  readonly holds: Record<string, Hold>;
  readonly retained: RetainedImage[];
  readonly history: StoredHistory[];
}

function isSnapshot(value: unknown): value is Snapshot {
  const v = value as Partial<Snapshot> | null;
  return (
    typeof v === 'object' && v !== null && v.version === 1 && typeof v.checks === 'object' && typeof v.previous === 'object' &&
    typeof v.holds === 'object' && Array.isArray(v.retained) && Array.isArray(v.history)
  );
}

/** The key a target's state is kept under: its name, and its engine when it has one (docs/state.md). */
export function targetKey(target: Pick<Target, 'name' | 'host'>): ContainerKey {
  return { name: target.name, ...(target.host ? { host: target.host } : {}) };
}

export function containerKey(key: ContainerKey): string {
  return key.host ? `${key.host}|${key.name}` : key.name;
}

/**
 * The stored key of `key` in `map`: exact, or, when no engine was named (`POST /v1/rollback?container=web`),
 * the one entry of that name on whichever engine.
 */
function storedKey(map: ReadonlyMap<string, unknown>, key: ContainerKey): string {
  const exact = containerKey(key);
  if (key.host || map.has(exact)) return exact;
  const suffix = `|${key.name}`;
  const found = [...map.keys()].filter((k) => k.endsWith(suffix));
  return found.length === 1 ? (found[0] as string) : exact;
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
  #retained: RetainedImage[] = [];
  #history: HistoryEntry[] = [];
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
    for (const [key, previous] of Object.entries(snapshot.previous)) this.#previous.set(key, previous);
    for (const [key, hold] of Object.entries(snapshot.holds)) this.#holds.set(key, hold);
    this.#retained = snapshot.retained;
    this.#history = snapshot.history.map((h) => ({ ...h, startedAt: new Date(h.startedAt), finishedAt: new Date(h.finishedAt) }));
  }

  lastCheck(id: string): LastCheck | undefined {
    return this.#checks.get(id);
  }

  recordCheck(id: string, check: LastCheck): void {
    // Re-inserting moves the entry to the end: eviction drops the answers not refreshed for longest.
    this.#checks.delete(id);
    this.#checks.set(id, check);
    if (this.#checks.size > LAST_CHECKS_CAPACITY) {
      for (const old of this.#checks.keys()) {
        if (this.#checks.size <= LAST_CHECKS_CAPACITY) break;
        this.#checks.delete(old);
      }
    }
    this.#changed();
  }

  previousImage(key: ContainerKey): PreviousImage | undefined {
    return this.#previous.get(storedKey(this.#previous, key));
  }

  setPreviousImage(key: ContainerKey, previous: PreviousImage | undefined): void {
    if (previous) this.#previous.set(containerKey(key), previous);
    else if (!this.#previous.delete(storedKey(this.#previous, key))) return;
    this.#changed();
  }

  hold(key: ContainerKey): Hold | undefined {
    return this.#holds.get(storedKey(this.#holds, key));
  }

  setHold(key: ContainerKey, hold: Hold | undefined): void {
    if (hold) this.#holds.set(containerKey(key), hold);
    else if (!this.#holds.delete(storedKey(this.#holds, key))) return;
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
      version: 1,
      checks: Object.fromEntries(this.#checks),
      previous: Object.fromEntries(this.#previous),
      holds: Object.fromEntries(this.#holds),
      retained: this.#retained,
      history: this.#history.map((h) => ({ ...h, startedAt: h.startedAt.toISOString(), finishedAt: h.finishedAt.toISOString() })),
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
