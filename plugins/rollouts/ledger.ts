// Where rollouts are kept (docs/rollouts.md#state): one record per rollout in the state store's keyed
// collection `rollouts` (STATE_STORE, docs/state.md), written at every change, so a soak's wait and a halt
// survive restarts. The rollouts still going on are held in memory as well (read once at start): the gate asks
// them for every stale container of every run.
// node:crypto loads with the first use, not with the service (docs/performance.md#memory).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');
import type { Page, PageQuery, StateStore } from '../../contracts/index.js';
import type { Rollout } from './machine.js';

export const COLLECTION = 'rollouts';
/** Read at start: more rollouts going on at once than this is not a fleet's shape; the rest stay in the store. */
const ACTIVE_READ_LIMIT = 10_000;

/** A candidate's rollout id: the same repository and digest give the same id, across runs and restarts. */
export function rolloutId(repository: string, digest: string): string {
  return nodeCrypto().createHash('sha256').update(`${repository}@${digest}`).digest('hex').slice(0, 16);
}

function isRollout(value: unknown): value is Rollout {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Partial<Rollout>;
  return typeof r.id === 'string' && typeof r.repository === 'string' && typeof r.digest === 'string' && Array.isArray(r.stages) && typeof r.state === 'string';
}

export class RolloutLedger {
  readonly #store: StateStore;
  readonly #active = new Map<string, Rollout>();

  constructor(store: StateStore) {
    this.#store = store;
    let cursor: string | undefined;
    let read = 0;
    do {
      const page = store.recordsPage(COLLECTION, { limit: 500, ...(cursor ? { cursor } : {}) });
      for (const { value } of page.entries) if (isRollout(value) && value.state !== 'done') this.#active.set(value.id, value);
      read += page.entries.length;
      cursor = page.next;
    } while (cursor && read < ACTIVE_READ_LIMIT);
  }

  /** A rollout going on, or one ended (read from the store). */
  get(id: string): Rollout | undefined {
    const active = this.#active.get(id);
    if (active) return active;
    const stored = this.#store.record(COLLECTION, id);
    return isRollout(stored) ? stored : undefined;
  }

  active(): Rollout[] {
    return [...this.#active.values()];
  }

  save(rollout: Rollout): void {
    if (rollout.state === 'done') this.#active.delete(rollout.id);
    else this.#active.set(rollout.id, rollout);
    this.#store.setRecord(COLLECTION, rollout.id, rollout);
  }

  /** A page of rollouts, the most recently changed first across pages (docs/http-api.md#pages). */
  page(query: PageQuery): Page<Rollout> {
    const page = this.#store.recordsPage(COLLECTION, query);
    return { entries: page.entries.map((e) => e.value).filter(isRollout), ...(page.next ? { next: page.next } : {}) };
  }
}
