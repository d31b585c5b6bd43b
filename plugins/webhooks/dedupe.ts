// Duplicate deliveries (docs/webhooks.md#handling): a registry retries, GitHub redelivers, a proxy may
// replay. Keys (a delivery id, an event id, or repository + tag + digest) are remembered for a few minutes
// in a bounded map: past its size the oldest keys go first, so a flood cannot grow memory.
export class RecentKeys {
  readonly #seen = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;

  constructor(ttlMs = 5 * 60_000, max = 10_000, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#max = max;
    this.#now = now;
  }

  /** True when `key` was seen within the window; remembers it either way. */
  seen(key: string): boolean {
    const now = this.#now();
    const at = this.#seen.get(key);
    if (at !== undefined && now - at < this.#ttlMs) return true;
    this.#seen.delete(key);
    this.#seen.set(key, now);
    this.#trim(now);
    return false;
  }

  /** Forgets `key` (a hint refused by a full backlog must count as new when the sender retries). */
  forget(key: string): void {
    this.#seen.delete(key);
  }

  get size(): number {
    return this.#seen.size;
  }

  #trim(now: number): void {
    // Insertion order is age order: drop expired keys from the front, then the oldest past the bound.
    for (const [key, at] of this.#seen) {
      if (now - at < this.#ttlMs && this.#seen.size <= this.#max) break;
      this.#seen.delete(key);
    }
  }
}
