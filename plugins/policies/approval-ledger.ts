// The approvals kept under --data-dir (docs/policies.md#approvals): one entry per candidate a person was asked
// about, saved in the state store's snapshot (written atomically), so a pending question survives a restart
// or a crash. A container has at most one open entry (pending or deferred): a newer candidate supersedes it.
// Decided entries are kept for the dashboard and the API, the oldest dropped past a bound.
import { containerKey, type ApprovalEntry, type ApprovalState, type ContainerKey, type StateStore } from '../../core/index.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

export const LEDGER_EXTENSION = 'approvals';
/** Entries kept in all; open ones are never dropped (one per container at most). */
export const LEDGER_CAPACITY = 500;

/** Open: still waiting for a person, or asked again after a while. */
export function isOpen(entry: ApprovalEntry): boolean {
  return entry.state === 'pending' || entry.state === 'deferred';
}

function isEntry(value: unknown): value is ApprovalEntry {
  const v = value as Partial<ApprovalEntry> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.container === 'string' &&
    typeof v.latest_digest === 'string' && typeof v.state === 'string' && typeof v.requested_at === 'string'
  );
}

export type NewEntry = Omit<ApprovalEntry, 'id' | 'state' | 'requested_at'>;

export class ApprovalLedger {
  #entries: ApprovalEntry[];

  constructor(readonly store: StateStore) {
    const saved = store.extension(LEDGER_EXTENSION);
    this.#entries = Array.isArray(saved) ? saved.filter(isEntry) : [];
  }

  all(): readonly ApprovalEntry[] {
    return this.#entries;
  }

  get(id: string): ApprovalEntry | undefined {
    return this.#entries.find((e) => e.id === id);
  }

  pendingCount(): number {
    return this.#entries.filter((e) => e.state === 'pending').length;
  }

  /** The container's open entry (pending or deferred). */
  openFor(key: ContainerKey): ApprovalEntry | undefined {
    const wanted = containerKey(key);
    return this.#entries.find((e) => isOpen(e) && containerKey({ name: e.container, ...(e.host ? { host: e.host } : {}) }) === wanted);
  }

  /** The newest entry of the container for exactly this digest, whatever its state. */
  forCandidate(key: ContainerKey, digest: string): ApprovalEntry | undefined {
    const wanted = containerKey(key);
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      const e = this.#entries[i] as ApprovalEntry;
      if (e.latest_digest === digest && containerKey({ name: e.container, ...(e.host ? { host: e.host } : {}) }) === wanted) return e;
    }
    return undefined;
  }

  /** Asks about a new candidate: any open entry of the container is superseded. Returns the new entry and what it superseded. */
  request(fields: NewEntry, now: Date): { entry: ApprovalEntry; superseded?: ApprovalEntry } {
    const key = { name: fields.container, ...(fields.host ? { host: fields.host } : {}) };
    const open = this.openFor(key);
    const superseded = open ? this.#replace(open.id, { state: 'superseded', decided_at: now.toISOString() }) : undefined;
    const entry: ApprovalEntry = { ...fields, id: nodeCrypto().randomBytes(6).toString('hex'), state: 'pending', requested_at: now.toISOString() };
    this.#entries.push(entry);
    this.#trim();
    this.#save();
    return superseded ? { entry, superseded } : { entry };
  }

  /** Sets an entry's state (and the fields that go with it); undefined when the id is unknown. */
  update(id: string, state: ApprovalState, fields: Partial<Pick<ApprovalEntry, 'decided_at' | 'decided_by' | 'deferred_until' | 'actor'>> = {}): ApprovalEntry | undefined {
    const entry = this.#replace(id, { state, ...fields });
    if (entry) this.#save();
    return entry;
  }

  #replace(id: string, change: Partial<ApprovalEntry>): ApprovalEntry | undefined {
    const i = this.#entries.findIndex((e) => e.id === id);
    if (i < 0) return undefined;
    const { deferred_until: _drop, ...rest } = this.#entries[i] as ApprovalEntry;
    // deferred_until belongs to the deferred state only.
    const next = { ...rest, ...change } as ApprovalEntry;
    this.#entries[i] = next;
    return next;
  }

  #trim(): void {
    let excess = this.#entries.length - LEDGER_CAPACITY;
    if (excess <= 0) return;
    this.#entries = this.#entries.filter((e) => excess <= 0 || isOpen(e) || (excess--, false));
  }

  #save(): void {
    this.store.setExtension(LEDGER_EXTENSION, this.#entries);
  }
}
