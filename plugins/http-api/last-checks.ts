// What the last check found for each container, so GET /v1/containers and /v1/containers/details can say
// it (docs/http-api.md#metrics-containers-config-history). With the state plugin (docs/state.md) that is the state store, fed by
// every run and kept across restarts; without it (an embedder that left it out), this in-memory map of
// what /v1/check found. Keyed by container id: a replaced container has a new id and starts unchecked.
import { type CheckResult, type ReleaseNotes } from '../../core/index.js';
import {
  lastCheckOf,
  type ContainerKey,
  type FailedCandidate,
  type Hold,
  type LastCheck as KeptCheck,
  type StateStore,
} from '../../contracts/index.js';
import { tagFields, type TagFields } from './check-record.js';

export interface LastCheck {
  /** The check record's `update_available`: stale, and the check itself did not fail. */
  readonly stale: boolean;
  readonly checkedAt: Date;
  /** Bare `sha256:…`, empty when the source named none. */
  readonly latestDigest: string;
  /** The tag policy's fields of that check (docs/tags.md#what-the-api-shows), when it had any. */
  readonly tags?: TagFields;
  /** Why that check failed, when it did (at most 200 characters). */
  readonly error?: string;
  /** The version an update leads to (docs/versions.md), when that check found one. */
  readonly latestVersion?: string;
  /** The release notes that check found (docs/versions.md#release-notes). */
  readonly releaseNotes?: ReleaseNotes;
  /** Plugins' own findings of that check, by key, each as its one line (docs/plugins.md#findings). */
  readonly findings?: Readonly<Record<string, string>>;
}

/** What the container routes read, by the container's id (docs/state.md#identity): its last check, hold, failed candidate. */
export interface KnownState {
  get(id: string): LastCheck | undefined;
  hold(id: string): Hold | undefined;
  /** True when the image the container ran before its last update is known (a rollback can use it). */
  canRollBack(id: string): boolean;
  /** The candidate that failed in it and is not retried (docs/state.md#failed-candidates). */
  failedCandidate(id: string): FailedCandidate | undefined;
  /** True when /v1/check must record its results here (no state store does it). */
  readonly recordsItself: boolean;
  record(results: readonly CheckResult[]): void;
}

/** Enough for any real host; the oldest answers go first, so the map cannot grow without bound. */
export const LAST_CHECKS_CAPACITY = 10_000;

/** A kept last check (the state store's form, core's lastCheckOf) as the container routes read it. */
function readCheck(last: KeptCheck): LastCheck {
  const tags: TagFields = {};
  if (last.tags) tagFields(last.tags, last.updateAvailable, tags);
  return {
    stale: last.updateAvailable,
    checkedAt: new Date(last.checkedAt),
    latestDigest: last.latestDigest,
    ...(Object.keys(tags).length > 0 ? { tags } : {}),
    ...(typeof last.error === 'string' ? { error: last.error } : {}),
    ...(last.latestVersion ? { latestVersion: last.latestVersion } : {}),
    ...(last.releaseNotes ? { releaseNotes: last.releaseNotes } : {}),
    ...(last.findings ? { findings: last.findings } : {}),
  };
}

export class LastChecks implements KnownState {
  readonly #byId = new Map<string, KeptCheck>();
  readonly #capacity: number;
  readonly recordsItself = true;

  constructor(capacity = LAST_CHECKS_CAPACITY) {
    this.#capacity = capacity;
  }

  /** Every result of a check run; a filtered run leaves the other containers' answers as they were. */
  record(results: readonly CheckResult[]): void {
    for (const result of results) {
      // Re-inserting moves the entry to the end: eviction drops the answers not refreshed for longest.
      this.#byId.delete(result.target.id);
      this.#byId.set(result.target.id, lastCheckOf(result));
    }
    for (const id of this.#byId.keys()) {
      if (this.#byId.size <= this.#capacity) break;
      this.#byId.delete(id);
    }
  }

  get(id: string): LastCheck | undefined {
    const last = this.#byId.get(id);
    return last && readCheck(last);
  }

  hold(): Hold | undefined {
    return undefined;
  }

  canRollBack(): boolean {
    return false;
  }

  failedCandidate(): FailedCandidate | undefined {
    return undefined;
  }
}

/** The state store as the routes read it; the state plugin records every run into it. */
export function storeState(store: StateStore): KnownState {
  return {
    recordsItself: false,
    record: () => undefined,
    get(id) {
      const last = store.lastCheck(id);
      return last && readCheck(last);
    },
    hold: (id) => store.hold(id),
    canRollBack: (id) => store.previousImage(id) !== undefined,
    failedCandidate: (id) => store.failedCandidate(id),
  };
}
