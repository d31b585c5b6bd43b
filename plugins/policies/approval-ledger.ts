// The approvals kept under --data-dir (docs/policies.md#approvals): one entry per candidate a person was asked
// about, one record each in the state store's collection (its state and container as indexed fields, so
// GET /v1/approvals reads a page on that index: docs/http-api.md#pages), so a pending question survives a
// restart or a crash and a change writes that one entry. An entry belongs to the container asked about — its runtime id, as the state store keeps state
// (docs/state.md#identity) — and follows it through Tidewatch's own replacements; another container that
// takes the name never inherits it. A container has at most one open entry (pending or deferred): a newer
// candidate supersedes it. Decided entries are kept for the dashboard and the API, the oldest dropped past a
// bound.
import { type ApprovalEntry } from '../../core/index.js';
import { readAllRecords, type Page, type PageQuery, type StateStore } from '../../contracts/index.js';
import type { ApprovalState } from './contracts.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** The record an earlier version kept every entry in, rewritten whole: read once and moved to the collection. */
export const LEDGER_EXTENSION = 'approvals';
/** The store's collection of entries, one record an entry by id (docs/state.md#plugins-records). */
export const LEDGER_COLLECTION = 'policies.approvals';
/** Entries kept in all; open ones are never dropped (one per container at most). */
export const LEDGER_CAPACITY = 500;

/** The container an entry belongs to: its runtime id on its engine. */
export interface Holder {
  readonly id: string;
  readonly host?: string | undefined;
}

/** Open: still waiting for a person, or asked again after a while. */
export function isOpen(entry: ApprovalEntry): boolean {
  return entry.state === 'pending' || entry.state === 'deferred';
}

/** Still to be settled by a run: open, or approved and waiting for its window. */
export function isLive(entry: ApprovalEntry): boolean {
  return isOpen(entry) || entry.state === 'approved';
}

export function belongsTo(entry: ApprovalEntry, holder: Holder): boolean {
  return entry.container_id === holder.id && (entry.host ?? '') === (holder.host ?? '');
}

function isEntry(value: unknown): value is ApprovalEntry {
  const v = value as Partial<ApprovalEntry> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.container === 'string' &&
    typeof v.latest_digest === 'string' && typeof v.state === 'string' && typeof v.requested_at === 'string' &&
    (v.container_id === undefined || typeof v.container_id === 'string')
  );
}

export type NewEntry = Omit<ApprovalEntry, 'id' | 'state' | 'requested_at' | 'container_id'> & { readonly container_id: string };
type Change = Partial<Pick<ApprovalEntry, 'decided_at' | 'decided_by' | 'deferred_until' | 'reason' | 'actor'>>;

export class ApprovalLedger {
  #entries: ApprovalEntry[];

  constructor(readonly store: StateStore) {
    const legacy = store.extension(LEDGER_EXTENSION);
    if (Array.isArray(legacy)) {
      // Moved once, oldest first: from here each change writes its own entry.
      this.#entries = legacy.filter(isEntry);
      for (const entry of this.#entries) this.#save(entry);
      store.setExtension(LEDGER_EXTENSION, undefined);
    } else {
      this.#entries = readAllRecords(store, LEDGER_COLLECTION).map((r) => r.value).filter(isEntry);
    }
  }

  /**
   * A page of entries, filters applied before paging: newest first across pages, oldest first within one,
   * read on the store's index of the entries' state and container. A cursor the store did not give throws
   * its 400 (`TW_ERR_STATE_CURSOR`).
   */
  page(query: PageQuery & { readonly state?: string | undefined; readonly container?: string | undefined }): Page<ApprovalEntry> {
    const where = { ...(query.state === undefined ? {} : { state: query.state }), ...(query.container === undefined ? {} : { container: query.container }) };
    const page = this.store.recordsPage(LEDGER_COLLECTION, { limit: query.limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }), where });
    const entries = page.entries.map((r) => r.value).filter(isEntry);
    return page.next === undefined ? { entries } : { entries, next: page.next };
  }

  all(): readonly ApprovalEntry[] {
    return this.#entries;
  }

  get(id: string): ApprovalEntry | undefined {
    return this.#entries.find((e) => e.id === id);
  }

  pendingCount(): number {
    let n = 0;
    for (const e of this.#entries) if (e.state === 'pending') n++;
    return n;
  }

  /** Whether any entry still waits for a run or a person: when none does, a run has nothing to look at. */
  hasLive(): boolean {
    return this.#entries.some(isLive);
  }

  /** Entries an earlier version kept by name only, still live (docs/policies.md#whose-approval-it-is). */
  legacy(): ApprovalEntry[] {
    return this.#entries.filter((e) => e.container_id === undefined && isLive(e));
  }

  /** The container's open entry (pending or deferred). */
  openFor(holder: Holder): ApprovalEntry | undefined {
    return this.#entries.find((e) => isOpen(e) && belongsTo(e, holder));
  }

  /** The container's newest approved entry: the window's first run applies it (docs/policies.md#approvals). */
  approvedFor(holder: Holder): ApprovalEntry | undefined {
    return this.#entries.findLast((e) => e.state === 'approved' && belongsTo(e, holder));
  }

  /** The container's newest entry, whatever its state. */
  lastFor(holder: Holder): ApprovalEntry | undefined {
    return this.#entries.findLast((e) => belongsTo(e, holder));
  }

  /** The newest entry of the container for exactly this digest, whatever its state. */
  forCandidate(holder: Holder, digest: string): ApprovalEntry | undefined {
    return this.#entries.findLast((e) => e.latest_digest === digest && belongsTo(e, holder));
  }

  /** Asks about a new candidate: any open entry of the container is superseded. Returns the new entry and what it superseded. */
  request(fields: NewEntry, now: Date): { entry: ApprovalEntry; superseded?: ApprovalEntry } {
    const open = this.openFor({ id: fields.container_id, host: fields.host });
    const reason = `a newer candidate ${fields.latest_tag ?? fields.latest_digest.slice(0, 19)} was found`;
    const superseded = open ? this.#replace(open.id, { state: 'superseded', decided_at: now.toISOString(), reason }) : undefined;
    const entry: ApprovalEntry = { ...fields, id: nodeCrypto().randomBytes(6).toString('hex'), state: 'pending', requested_at: now.toISOString() };
    this.#entries.push(entry);
    if (superseded) this.#save(superseded);
    this.#save(entry);
    this.#trim();
    return superseded ? { entry, superseded } : { entry };
  }

  /** Sets an entry's state (and the fields that go with it); undefined when the id is unknown. */
  update(id: string, state: ApprovalState, fields: Change = {}): ApprovalEntry | undefined {
    const entry = this.#replace(id, { state, ...fields });
    if (entry) this.#save(entry);
    return entry;
  }

  /** A live entry that can no longer be applied to its container, and why; undefined when it is not live. */
  supersede(id: string, reason: string, now: Date): ApprovalEntry | undefined {
    const entry = this.get(id);
    if (!entry || !isLive(entry)) return undefined;
    return this.update(id, 'superseded', { decided_at: now.toISOString(), ...(entry.decided_by ? { decided_by: entry.decided_by } : {}), reason });
  }

  /** An entry of an earlier version, kept by name, matched to the container it was asked about. */
  bind(id: string, containerId: string): void {
    const i = this.#entries.findIndex((e) => e.id === id);
    if (i < 0) return;
    const entry: ApprovalEntry = { ...(this.#entries[i] as ApprovalEntry), container_id: containerId };
    this.#entries[i] = entry;
    this.#save(entry);
  }

  /**
   * Tidewatch replaced container `oldId` by `newId` on `host` (the runtime's new container id): its entries
   * follow it. An entry still open reads from what now runs (`image`, `current_tag`): 1.4.2 → 1.5.0 applied
   * leaves the question about 2.0.0 as "1.5.0 → 2.0.0".
   */
  follow(oldId: string, newId: string, host: string | undefined, running: { image: string; tag?: string | undefined }): ApprovalEntry[] {
    const moved: ApprovalEntry[] = [];
    this.#entries = this.#entries.map((e) => {
      if (!belongsTo(e, { id: oldId, host })) return e;
      if (!isLive(e)) return this.#save({ ...e, container_id: newId });
      // Only a tag update names a current tag; a digest update keeps none.
      const tag = e.current_tag !== undefined && running.tag ? { current_tag: running.tag } : {};
      const next: ApprovalEntry = { ...e, container_id: newId, image: running.image, ...tag };
      moved.push(next);
      return this.#save(next);
    });
    return moved;
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
    this.#entries = this.#entries.filter((e) => {
      if (excess <= 0 || isOpen(e)) return true;
      excess--;
      this.store.setRecord(LEDGER_COLLECTION, e.id, undefined);
      return false;
    });
  }

  /** Writes one entry with its indexed fields (the page's filters): what a change costs. */
  #save(entry: ApprovalEntry): ApprovalEntry {
    this.store.setRecord(LEDGER_COLLECTION, entry.id, entry, { state: entry.state, container: entry.container });
    return entry;
  }
}
