// The state plugin's contract with other plugins (docs/plugins.md#contracts): what Tidewatch remembers between
// runs and across restarts (docs/state.md): each container's last check, the run history, the audit trail of
// every change, the image each updated container ran before (for rollback on demand), holds after a rollback,
// and the previous images cleanup keeps for a while. One store holds it all, reached through the STATE_STORE
// service the state plugin provides (store.ts is its implementation); with no data directory it lives in memory
// only. Also the shared rules of the state: what a check's result becomes as a container's last check, and how a
// person's name for a container is keyed. Other plugins reach this file through the contracts entry
// (contracts/index.ts), never by importing the state plugin.
import {
  bareDigest,
  defineService,
  DOCUMENTED_FINDING_KEYS,
  FINDINGS,
  findingLines,
  readFinding,
  type Actor,
  type CheckResult,
  type HistoryEntry,
  type ReleaseNotes,
  type ServiceKey,
  type SnapshotRef,
  type Staleness,
  type Target,
  type UpdateReport,
} from '../../core/index.js';

/** An image as the audit trail names it: reference, registry digest (empty when unknown), local id. */
export interface AuditImage {
  readonly image: string;
  readonly digest: string;
  readonly image_id: string;
  /** The image's `org.opencontainers.image.version` when known (docs/versions.md): what the timeline shows. */
  readonly version?: string;
}

export type AuditAction = 'update' | 'rollback' | 'restart' | 'repair' | 'approve' | 'reject' | 'defer' | 'release';

/** One change Tidewatch made, as `GET /v1/audit` shows it (docs/state.md#the-audit-trail). */
export interface AuditEntry {
  readonly id: string;
  /** RFC 3339. */
  readonly time: string;
  readonly action: AuditAction;
  readonly container: string;
  readonly host?: string;
  /** Who started the run (`RunContext.trigger`); `startup` for a start-up repair. */
  readonly trigger: string;
  /** Who made the change or the decision (docs/people.md#a-name-on-every-decision), when known. */
  readonly actor?: Actor;
  /** The run's id; empty for a start-up repair. */
  readonly run_id: string;
  readonly from?: AuditImage;
  readonly to?: AuditImage;
  /** `updated`, `rolled_back`, `restarted`, `restored`, `removed`, `failed`… */
  readonly outcome: string;
  readonly error?: string;
  /** A sentence about the result the user should read, e.g. what became of a Compose file (docs/compose.md). */
  readonly note?: string;
  /** The volume snapshot the change took or restored (docs/snapshots.md). */
  readonly snapshot?: SnapshotRef;
}

/** What an audit writer gives; the store adds `id` and `time`. */
export type AuditRecord = Omit<AuditEntry, 'id' | 'time'> & { readonly time?: string };

export interface AuditQuery {
  readonly container?: string;
  /** Epoch milliseconds, inclusive. */
  readonly since?: number;
  readonly until?: number;
  /** The newest N of what matched. */
  readonly limit?: number;
}

/**
 * One page of a list that grows (docs/state.md#pages): pages run from the newest entries to the oldest;
 * `cursor` is the previous page's `next`, opaque to the caller.
 */
export interface PageQuery {
  /** Entries in the page, at least 1. */
  readonly limit: number;
  readonly cursor?: string;
}

export interface Page<T> {
  /** Oldest first within the page (newest last). */
  readonly entries: T[];
  /** The following (older) page's cursor; absent on the last page. */
  readonly next?: string;
}

/** A run summary query: `since` and `until` bound the run's start (epoch ms, inclusive). */
export interface HistoryQuery {
  readonly since?: number;
  readonly until?: number;
}

/** A record's exact-match fields (`setRecord`), by name: what a page of its collection filters on. */
export type RecordFields = Readonly<Record<string, string>>;

/** One record of a plugin's keyed collection (`setRecord`). */
export interface KeyedRecord {
  readonly key: string;
  readonly value: unknown;
}

/** A container's last check, whichever run made it. */
export interface LastCheck {
  readonly name: string;
  readonly host?: string;
  /** Stale, and the check itself did not fail. */
  readonly updateAvailable: boolean;
  /** Bare `sha256:…`, empty when the source named none. */
  readonly latestDigest: string;
  /** RFC 3339. */
  readonly checkedAt: string;
  /** Why that check failed (the check record's `error`, at most 200 characters); absent when it did not. */
  readonly error?: string;
  /** The tag policy's answer of that check (docs/tags.md), when it gave one. */
  readonly tags?: LastCheckTags;
  /** The version that check found an update to (docs/versions.md), when known. */
  readonly latestVersion?: string;
  /** The release notes that check found (docs/versions.md#release-notes), when it looked. */
  readonly releaseNotes?: ReleaseNotes;
  /**
   * The one line of each other finding of that check (docs/plugins.md#findings), by key: a plugin's own
   * finding that the HTTP API shows in `findings`. Absent when there was none.
   */
  readonly findings?: Readonly<Record<string, string>>;
}

/** The tag policy's answer of a last check as it is kept (docs/tags.md): the names it has always been kept under. */
export interface LastCheckTags {
  readonly tagPolicy?: string;
  readonly currentTag?: string;
  readonly latestTag?: string;
  readonly updateKind?: 'digest' | 'patch' | 'minor' | 'major';
  readonly note?: string;
}

/** The image a container ran before its last update: where a rollback takes it back to. */
export interface PreviousImage {
  readonly image: string;
  readonly imageId: string;
  readonly digest: string;
  /** Its `org.opencontainers.image.version`, when it had one (the rollback's audit entry names it). */
  readonly version?: string;
  /** RFC 3339: when the update replaced it. */
  readonly replacedAt: string;
}

/** A rolled-back container is not put back on the image it was rolled back from (docs/state.md#holds). */
export interface Hold {
  readonly imageId: string;
  /** Bare registry digest of that image; empty when unknown. */
  readonly digest: string;
  readonly image: string;
  /** RFC 3339. */
  readonly since: string;
}

/**
 * A candidate image that failed to run in this container (docs/state.md#failed-candidates): no run tries it
 * again until a newer candidate appears, a person asks for it, or `POST /v1/release` forgets it.
 */
export interface FailedCandidate {
  /** The reference the candidate would have run (the newer tag's, under a tag policy). */
  readonly image: string;
  /** Bare registry digest of the candidate; empty when unknown. */
  readonly digest: string;
  /** Local id of the candidate (or, for a service, the digest); empty when unknown. */
  readonly imageId: string;
  /** Why it failed, at most 200 characters. */
  readonly reason: string;
  /** RFC 3339: when it failed. */
  readonly since: string;
  /** True once a run skipped it and said so (the audit entry, the one notification). */
  readonly reported?: boolean;
}

/** A replaced image cleanup keeps until `until` so that a rollback can still use it. */
export interface RetainedImage {
  readonly imageId: string;
  readonly imageName: string;
  readonly host: string;
  /** RFC 3339. */
  readonly until: string;
}

/** How a person names a container (`?container=NAME&host=…`): its name and, with several engines, its engine. */
export interface ContainerKey {
  readonly name: string;
  readonly host?: string;
}

export interface StateStore {
  /** The data directory, or undefined when the state lives in memory only. */
  readonly dir: string | undefined;
  /** The last check of a container by its runtime id (a replaced container starts unchecked). */
  lastCheck(id: string): LastCheck | undefined;
  recordCheck(id: string, check: LastCheck): void;
  /**
   * State that belongs to the container Tidewatch acted on is kept by its runtime id (docs/state.md#identity):
   * a container someone else created under the same name has another id and starts with none.
   */
  previousImage(id: string): PreviousImage | undefined;
  setPreviousImage(id: string, previous: PreviousImage | undefined): void;
  hold(id: string): Hold | undefined;
  setHold(id: string, hold: Hold | undefined): void;
  failedCandidate(id: string): FailedCandidate | undefined;
  setFailedCandidate(id: string, failed: FailedCandidate | undefined): void;
  /**
   * The runtime replaced container `oldId` by `newId` (ApplyResult.newContainerId): the new one inherits the
   * previous image, the hold and the failed candidate of the old one.
   */
  followReplacement(oldId: string, newId: string): void;
  retainedImages(): readonly RetainedImage[];
  setRetainedImages(images: readonly RetainedImage[]): void;
  /** The newest run summaries saved (at most the core's history of 500), oldest first. */
  history(): readonly HistoryEntry[];
  /** A page of run summaries, filters applied before paging (docs/state.md#pages). */
  historyPage(query: HistoryQuery & PageQuery): Promise<Page<HistoryEntry>>;
  recordHistory(entry: HistoryEntry): void;
  /** Appends to the audit trail (durably when on disk); the oldest entries go past the bound. */
  appendAudit(record: AuditRecord): Promise<AuditEntry>;
  /** Matching audit entries, oldest first. */
  audit(query?: AuditQuery): Promise<AuditEntry[]>;
  /** A page of matching audit entries, filters applied before paging; `limit` is the page's size. */
  auditPage(query: Omit<AuditQuery, 'limit'> & PageQuery): Promise<Page<AuditEntry>>;
  /**
   * A plugin's own record, kept in the same store (JSON values only): the policies plugin's approvals
   * (docs/policies.md). Undefined until set.
   */
  extension(name: string): unknown;
  /** Replaces a plugin's record (undefined removes it); written with the next commit. */
  setExtension(name: string, value: unknown): void;
  /**
   * One record of a plugin's keyed collection (JSON values only; collections are named by the plugin, e.g.
   * `people.tokens`): for state that grows, where `extension` would rewrite the whole record on each change.
   */
  record(collection: string, key: string): unknown;
  /**
   * Sets (undefined removes) one record. A record keeps its place in the collection (the order it was first
   * set in); `fields` replace its exact-match fields, the ones `recordsPage` can filter on by index.
   */
  setRecord(collection: string, key: string, value: unknown, fields?: RecordFields): void;
  /**
   * A page of a collection, newest first across pages (oldest first within one): every record, or those whose
   * fields equal every one in `where` (at most four), read on an index (docs/state.md#pages).
   */
  recordsPage(collection: string, query: PageQuery & { readonly where?: RecordFields }): Page<KeyedRecord>;
  /** Resolves once everything recorded so far is on disk. */
  flush(): Promise<void>;
}

/** What a rollback on demand came to: no previous image known, that image gone, or the run's report. */
export type RollbackOutcome =
  | { readonly status: 'unknown' }
  | { readonly status: 'gone'; readonly previous: PreviousImage }
  /** `restore=volumes`, and no snapshot was taken before the update being rolled back (docs/snapshots.md). */
  | { readonly status: 'no_snapshot'; readonly previous: PreviousImage }
  | { readonly status: 'done'; readonly report: UpdateReport; readonly from: AuditImage; readonly to: AuditImage };

/** The one state store (docs/state.md): last checks, history, audit trail, holds. Provided by the state plugin. */
export const STATE_STORE: ServiceKey<StateStore> = defineService<StateStore>('state-store');

/** Rollback on demand and holds (docs/state.md#rollback-on-demand). Provided by the state plugin. */
export interface Rollbacks {
  /** Puts the container back on the image it ran before its last update, as a targeted update run. */
  rollback(
    key: ContainerKey,
    options?: { trigger?: string; actor?: Actor; signal?: AbortSignal; runId?: string; restore?: 'volumes' },
  ): Promise<RollbackOutcome>;
  /**
   * Lifts a hold and forgets a failed candidate; false when the container had neither. A release that lifted
   * something is an audit entry (`release`) naming `actor` (docs/people.md).
   */
  release(key: ContainerKey, actor?: Actor): Promise<boolean>;
}
export const ROLLBACKS: ServiceKey<Rollbacks> = defineService<Rollbacks>('rollbacks');

/**
 * The self-update hand-over of the data directory's lock (docs/state.md#one-process-per-data-directory):
 * the runtime hands the lock over just before it starts its own successor, which shares the data directory
 * and takes the lock at its start, and takes it back when it removes that successor again. Provided by the
 * state plugin when a --data-dir is set.
 */
export interface DataDirHandover {
  /** Saves the state and releases the lock. */
  handOver(): Promise<void>;
  /** Takes the lock back after the successor was removed (a no-op while it is held). */
  takeBack(): Promise<void>;
}
export const DATA_DIR_HANDOVER: ServiceKey<DataDirHandover> = defineService<DataDirHandover>('data-dir-handover');

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

/** The name (and engine) a person gives for a target (docs/hosts.md). */
export function targetKey(target: Pick<Target, 'name' | 'host'>): ContainerKey {
  return { name: target.name, ...(target.host ? { host: target.host } : {}) };
}

export function containerKey(key: ContainerKey): string {
  return key.host ? `${key.host}|${key.name}` : key.name;
}
