// What the last /v1/check found for each container, so GET /v1/containers/details can say `stale` for real
// (docs/http-api.md#containers-details) instead of Watchtower's always-false. Keyed by container id: a
// replaced container has a new id and starts unchecked, which is right, since it runs the newer image.
import type { CheckResult } from '../../core/index.js';
import { tagFields, type TagFields } from './check-record.js';

export interface LastCheck {
  /** The check record's `update_available`: stale, and the check itself did not fail. */
  readonly stale: boolean;
  readonly checkedAt: Date;
  /** The tag policy's fields of that check (docs/tags.md#what-the-api-shows), when it had any. */
  readonly tags?: TagFields;
}

/** Enough for any real host; the oldest answers go first, so the map cannot grow without bound. */
export const LAST_CHECKS_CAPACITY = 10_000;

export class LastChecks {
  readonly #byId = new Map<string, LastCheck>();
  readonly #capacity: number;

  constructor(capacity = LAST_CHECKS_CAPACITY) {
    this.#capacity = capacity;
  }

  /** Every result of a check run; a filtered run leaves the other containers' answers as they were. */
  record(results: readonly CheckResult[]): void {
    for (const { target, staleness, checkedAt } of results) {
      // Re-inserting moves the entry to the end: eviction drops the answers not refreshed for longest.
      this.#byId.delete(target.id);
      const tags: TagFields = {};
      tagFields(staleness, tags);
      this.#byId.set(target.id, { stale: staleness.stale && !staleness.error, checkedAt, ...(Object.keys(tags).length > 0 ? { tags } : {}) });
    }
    for (const id of this.#byId.keys()) {
      if (this.#byId.size <= this.#capacity) break;
      this.#byId.delete(id);
    }
  }

  get(id: string): LastCheck | undefined {
    return this.#byId.get(id);
  }
}
