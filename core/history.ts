// The last run summaries, oldest first, for /v1/history and anyone embedding the core.
import type { Actor, RunKind, UpdateSummary } from './types.js';

export interface HistoryEntry {
  readonly runId: string;
  readonly kind: RunKind;
  readonly targeted: boolean;
  /** Who started the run (`RunContext.trigger`). */
  readonly trigger: string;
  /** Who started it, when known (docs/people.md). */
  readonly actor?: Actor;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly summary: UpdateSummary;
  /** Set when the run as a whole failed or was cancelled. */
  readonly error?: string;
}

export class RunHistory {
  readonly #entries: HistoryEntry[] = [];
  readonly #listeners: ((entry: HistoryEntry) => void)[] = [];
  readonly capacity: number;

  constructor(capacity = 500) {
    this.capacity = capacity;
  }

  add(entry: HistoryEntry): void {
    this.#keep(entry);
    for (const listener of this.#listeners) listener(entry);
  }

  /** Entries saved by an earlier process (docs/state.md), oldest first; listeners are not told. */
  restore(entries: readonly HistoryEntry[]): void {
    for (const entry of entries) this.#keep(entry);
  }

  /** `listener` hears of every entry added from now on (the state store saves them). */
  subscribe(listener: (entry: HistoryEntry) => void): void {
    this.#listeners.push(listener);
  }

  #keep(entry: HistoryEntry): void {
    this.#entries.push(entry);
    if (this.#entries.length > this.capacity) this.#entries.splice(0, this.#entries.length - this.capacity);
  }

  /** Oldest first. */
  entries(): readonly HistoryEntry[] {
    return [...this.#entries];
  }
}
