// Personal API tokens (docs/people.md#personal-api-tokens): an admin creates one for a person or a CI job with
// a role and maybe an expiry; the secret is shown once and only its SHA-256 is kept. The token is 256 random
// bits, so a slow password hash would add nothing (no one can guess 2^256 values, however fast each guess) and
// would cost every request; one SHA-256, shared with the main token's check, keeps a personal token exactly as
// cheap as the main token (a Map lookup by the hash). Kept in the state store under the data directory (memory
// only without --data-dir). `last_used_at` is kept in memory per request and written at most once a minute.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Actor, Principal, Role } from '../../core/index.js';
import type { StateStore } from '../../contracts/index.js';
import type { Authentication } from './contracts.js';

export const TOKENS_RECORD = 'people.tokens';
/** Live (not revoked) tokens at most: creating one more is refused. */
export const MAX_TOKENS = 1_000;
/** Revoked tokens remembered so that using one says "revoked"; the oldest are forgotten past this. */
const MAX_REVOKED = 1_000;
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
  readonly #revoked: StoredToken[] = [];
  readonly #store: StateStore | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(store: StateStore | undefined) {
    this.#store = store;
    const saved = store?.extension(TOKENS_RECORD) as { tokens?: unknown[] } | undefined;
    for (const token of saved?.tokens ?? []) {
      if (!isStored(token)) continue;
      if (token.revoked_at) this.#revoked.push(token);
      else this.#add(token);
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
    const secret = `tw_${randomBytes(32).toString('base64url')}`;
    const now = Date.now();
    const token: StoredToken = {
      id: randomUUID(),
      name,
      role,
      hash: hashOf(secret),
      created_at: new Date(now).toISOString(),
      expires_at: expiresInMs === undefined ? null : new Date(now + expiresInMs).toISOString(),
    };
    this.#add(token);
    this.#save();
    return { token, secret };
  }

  list(): TokenView[] {
    return [...this.#byHash.values()].map(({ token, lastUsedMs }) => ({
      id: token.id,
      name: token.name,
      role: token.role,
      created_at: token.created_at,
      expires_at: token.expires_at,
      last_used_at: lastUsedMs > 0 ? new Date(lastUsedMs).toISOString() : null,
    }));
  }

  /** Revokes at once: the next request with it is refused. False for an unknown id. */
  revoke(id: string): StoredToken | undefined {
    for (const [hash, live] of this.#byHash) {
      if (live.token.id !== id) continue;
      this.#byHash.delete(hash);
      const revoked = { ...live.token, revoked_at: new Date().toISOString() };
      this.#revoked.push(revoked);
      if (this.#revoked.length > MAX_REVOKED) this.#revoked.splice(0, this.#revoked.length - MAX_REVOKED);
      this.#save();
      return revoked;
    }
    return undefined;
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
    if (now - live.writtenMs >= LAST_USED_WRITE_MS) this.#saveSoon();
    return { status: 'ok', principal: live.principal };
  }

  /** last_used_at reaches the store lazily: one write for whatever was used within the minute. */
  #saveSoon(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#save();
    }, 1_000);
    this.#timer.unref();
  }

  #save(): void {
    const tokens: StoredToken[] = [...this.#revoked];
    for (const live of this.#byHash.values()) {
      live.writtenMs = live.lastUsedMs;
      tokens.push(live.lastUsedMs > 0 ? { ...live.token, last_used_at: new Date(live.lastUsedMs).toISOString() } : live.token);
    }
    this.#store?.setExtension(TOKENS_RECORD, { version: 1, tokens });
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#save();
  }
}

/** The SHA-256 of a secret as kept (base64url). */
export function hashOf(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}
