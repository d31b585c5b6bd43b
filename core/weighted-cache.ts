// A least-recently-used map bounded by the total weight of its entries, not by their count: the
// compiled-pattern cache of core/request-filter.ts weighs each pattern by what it cost to compile, so
// a few expensive entries take the room of many cheap ones (docs/http-api.md#pattern-limits).

export class WeightedCache<K, V> {
  readonly #budget: number;
  readonly #entries = new Map<K, { value: V; weight: number }>();
  #weight = 0;

  constructor(budget: number) {
    this.#budget = budget;
  }

  get weight(): number {
    return this.#weight;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    // Map keeps insertion order: re-inserting marks the entry most recently used.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps the value unless it alone outweighs the budget; evicts the least recently used to make room. */
  set(key: K, value: V, weight: number): void {
    this.delete(key);
    if (weight > this.#budget) return;
    for (const [oldest, entry] of this.#entries) {
      if (this.#weight + weight <= this.#budget) break;
      this.#entries.delete(oldest);
      this.#weight -= entry.weight;
    }
    this.#entries.set(key, { value, weight });
    this.#weight += weight;
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#weight -= entry.weight;
  }
}
