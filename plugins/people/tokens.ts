// Personal API tokens (docs/people.md#personal-api-tokens): an admin creates one for a person or a CI job with
// a role and maybe an expiry; the secret is shown once and only its SHA-256 is kept. The token is 256 random
// bits, so a slow password hash would add nothing (no one can guess 2^256 values, however fast each guess) and
// would cost every request; one SHA-256, shared with the main token's check, keeps a personal token exactly as
// cheap as the main token (a Map lookup by the hash). Kept in the state store under the data directory (memory
// only without --data-dir), one record a token with its status as an indexed field, so GET /v1/tokens reads a
// page of the live ones on that index (docs/http-api.md#pages) and a change writes that one token.
// `last_used_at` is kept in memory per request and written at most once a minute, for the tokens used.
import { createError, type Actor, type Principal, type Role } from '../../core/index.js';
import { readAllRecords, type Page, type PageQuery, type StateStore } from '../../contracts/index.js';
import type { Authentication } from './contracts.js';
// node:crypto loads with the first token created or presented, not with the service (docs/performance.md#memory).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** The store's collection of tokens, one record a token by id (docs/state.md#plugins-records). */
export const TOKENS_COLLECTION = 'people.tokens';
/** The record an earlier version kept every token in, rewritten whole: read once and moved to the collection. */
export const TOKENS_RECORD = 'people.tokens';
/** Live (not revoked) tokens at most: creating one more is refused. */
export const MAX_TOKENS = 1_000;
/** Revoked tokens remembered so that using one says "revoked"; the oldest are forgotten past this. */
const MAX_REVOKED = 1_000;
/** A cursor not from this list: the same 400 as the store's (docs/errors.md). */
const tokenErrors = {
  badCursor: createError('TW_ERR_STATE_CURSOR', () => "invalid 'cursor' parameter: not one this server gave", 400),
};

/** How stale a persisted `last_used_at` may be. */
const LAST_USED_WRITE_MS = 60_000;

/** One token as kept: never the secret, only its SHA-256 (base64url). */
export interface StoredToken {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly hash: string;
  readonly created_at: string;
  /** RFC 3339, or null for a token that does not expire. */
  readonly expires_at: string | null;
  last_used_at?: string;
  revoked_at?: string;
}

/** A token as `GET /v1/tokens` lists it: no hash, no secret. */
export interface TokenView {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly created_at: string;
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
}

interface Live {
  readonly token: StoredToken;
  readonly principal: Principal;
  readonly expiresMs: number;
  lastUsedMs: number;
  writtenMs: number;
}

function isStored(value: unknown): value is StoredToken {
  const v = value as Partial<StoredToken> | null;
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && typeof v.hash === 'string' && typeof v.name === 'string' &&
    (v.role === 'viewer' || v.role === 'operator' || v.role === 'admin');
}

export class TokenRegistry {
  /** By the SHA-256 of the secret (base64url): the one lookup a request costs. */
  readonly #byHash = new Map<string, Live>();
  /** The same live tokens by id: a listed page takes the newest last_used_at from here. */
  readonly #byId = new Map<string, Live>();
  readonly #revoked: StoredToken[] = [];
  readonly #store: StateStore | undefined;
  /** Tokens used since their last_used_at was written. */
  readonly #used = new Set<Live>();
  /** Without a store: every token in creation order, what a page is read from. */
  readonly #created: StoredToken[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(store: StateStore | undefined) {
    this.#store = store;
    if (!store) return;
    const legacy = store.extension(TOKENS_RECORD) as { tokens?: unknown[] } | undefined;
    const saved = legacy?.tokens ?? readAllRecords(store, TOKENS_COLLECTION).map((r) => r.value);
    for (const token of saved) {
      if (!isStored(token)) continue;
      if (token.revoked_at) this.#revoked.push(token);
      else this.#add(token);
    }
    if (legacy) {
      // Moved once, in the order they were created: from here each change writes its own token.
      const all = saved.filter(isStored).sort((a, b) => a.created_at.localeCompare(b.created_at));
      for (const token of all) this.#write(token);
      store.setExtension(TOKENS_RECORD, undefined);
    }
  }

  #add(token: StoredToken): Live {
    const actor: Actor = Object.freeze({ kind: 'token', name: token.name });
    const lastUsedMs = token.last_used_at ? Date.parse(token.last_used_at) : 0;
    const live: Live = {
      token,
      principal: Object.freeze({ actor, role: token.role, via: 'token' }),
      expiresMs: token.expires_at === null ? Infinity : Date.parse(token.expires_at),
      lastUsedMs,
      writtenMs: lastUsedMs,
    };
    this.#byHash.set(token.hash, live);
    this.#byId.set(token.id, live);
    return live;
  }

  get size(): number {
    return this.#byHash.size;
  }

  hasName(name: string): boolean {
    for (const { token } of this.#byHash.values()) if (token.name === name) return true;
    return false;
  }

  /** A new token: the secret is in the answer and nowhere else. */
  create(name: string, role: Role, expiresInMs: number | undefined): { token: StoredToken; secret: string } {
    const secret = `tw_${nodeCrypto().randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    const token: StoredToken = {
      id: nodeCrypto().randomUUID(),
      name,
      role,
      hash: hashOf(secret),
      created_at: new Date(now).toISOString(),
      expires_at: expiresInMs === undefined ? null : new Date(now + expiresInMs).toISOString(),
    };
    this.#add(token);
    if (!this.#store) this.#created.push(token);
    this.#write(token);
    return { token, secret };
  }

  #view(token: StoredToken): TokenView {
    const live = this.#byId.get(token.id);
    const lastUsedMs = live ? live.lastUsedMs : token.last_used_at ? Date.parse(token.last_used_at) : 0;
    return {
      id: token.id,
      name: token.name,
      role: token.role,
      created_at: token.created_at,
      expires_at: token.expires_at,
      last_used_at: lastUsedMs > 0 ? new Date(lastUsedMs).toISOString() : null,
    };
  }

  /**
   * A page of the live tokens, newest first across pages and in creation order within one: one read on the
   * store's index of live tokens. A cursor the store did not give throws its 400 (`TW_ERR_STATE_CURSOR`).
   */
  list(query: PageQuery): Page<TokenView> {
    if (this.#store) {
      const page = this.#store.recordsPage(TOKENS_COLLECTION, { ...query, where: { status: 'live' } });
      const entries = page.entries.map((e) => e.value).filter(isStored).map((t) => this.#view(t));
      return page.next === undefined ? { entries } : { entries, next: page.next };
    }
    return pageOfMemory(this.#created.filter((t) => this.#byId.has(t.id)), query, (t) => this.#view(t));
  }

  /** Revokes at once: the next request with it is refused. False for an unknown id. */
  revoke(id: string): StoredToken | undefined {
    const live = this.#byId.get(id);
    if (!live) return undefined;
    this.#byHash.delete(live.token.hash);
    this.#byId.delete(id);
    this.#used.delete(live);
    const revoked: StoredToken = { ...this.#stored(live), revoked_at: new Date().toISOString() };
    this.#revoked.push(revoked);
    this.#write(revoked);
    // The oldest revoked tokens are forgotten: using one then reads as an unknown token.
    for (const forgotten of this.#revoked.splice(0, Math.max(0, this.#revoked.length - MAX_REVOKED))) {
      this.#store?.setRecord(TOKENS_COLLECTION, forgotten.id, undefined);
    }
    return revoked;
  }

  /** The request path: one Map lookup by the hash the API computed anyway. */
  authenticate(sha256: Buffer): Authentication {
    const hash = sha256.toString('base64url');
    const live = this.#byHash.get(hash);
    if (!live) {
      // A revoked token is rare: only then is the short list of revoked ones looked at.
      return this.#revoked.some((t) => t.hash === hash) ? { status: 'refused', reason: 'API token revoked' } : { status: 'unknown' };
    }
    const now = Date.now();
    if (now >= live.expiresMs) return { status: 'refused', reason: 'API token expired' };
    live.lastUsedMs = now;
    if (now - live.writtenMs >= LAST_USED_WRITE_MS) {
      this.#used.add(live);
      this.#saveSoon();
    }
    return { status: 'ok', principal: live.principal };
  }

  /** last_used_at reaches the store lazily: one write of each token used within the minute. */
  #saveSoon(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#saveUsed();
    }, 1_000);
    this.#timer.unref();
  }

  #saveUsed(): void {
    for (const live of this.#used) this.#write(this.#stored(live));
    this.#used.clear();
  }

  #stored(live: Live): StoredToken {
    live.writtenMs = live.lastUsedMs;
    return live.lastUsedMs > 0 ? { ...live.token, last_used_at: new Date(live.lastUsedMs).toISOString() } : live.token;
  }

  #write(token: StoredToken): void {
    this.#store?.setRecord(TOKENS_COLLECTION, token.id, token, { status: token.revoked_at ? 'revoked' : 'live' });
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#saveUsed();
  }
}

/**
 * A page of a list held in memory, oldest first (the tokens when no state store is loaded): newest first
 * across pages, the cursor the index of the page's oldest entry, as opaque as the store's.
 */
function pageOfMemory<T, V>(list: readonly T[], query: PageQuery, view: (item: T) => V): Page<V> {
  let end = list.length;
  if (query.cursor !== undefined) {
    const text = /^[A-Za-z0-9_-]{1,16}$/.test(query.cursor) ? Buffer.from(query.cursor, 'base64url').toString('latin1') : '';
    end = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
    if (!(end >= 0 && end <= list.length)) throw tokenErrors.badCursor();
  }
  const start = Math.max(0, end - query.limit);
  const entries = list.slice(start, end).map(view);
  return start > 0 && query.limit > 0 ? { entries, next: Buffer.from(String(start)).toString('base64url') } : { entries };
}

/** The SHA-256 of a secret as kept (base64url). */
export function hashOf(secret: string): string {
  return nodeCrypto().createHash('sha256').update(secret, 'utf8').digest('base64url');
}
