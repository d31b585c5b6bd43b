// Signed-in people's sessions (docs/people.md#sessions): in memory, bounded and expiring. The cookie holds 256
// random bits; the map is keyed by their SHA-256, so a dump of the process's memory holds no usable cookie.
// A restart signs everyone out (they sign in again with one click at the provider).
import type { Principal } from '../../core/index.js';
import type { Authentication } from './contracts.js';
// node:crypto loads with the first session, not with the service (docs/performance.md#memory).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

/** Sessions at most: past it the oldest goes (a flood of sign-ins cannot grow the process). */
export const MAX_SESSIONS = 10_000;

interface Session {
  readonly principal: Principal;
  readonly expiresMs: number;
}

const hashOf = (id: string): string => nodeCrypto().createHash('sha256').update(id, 'utf8').digest('base64url');

export class SessionStore {
  readonly #sessions = new Map<string, Session>();
  readonly #ttlMs: number;

  constructor(ttlMs: number) {
    this.#ttlMs = ttlMs;
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** A new session's cookie value. */
  open(principal: Omit<Principal, 'via'>): string {
    this.#sweep();
    const id = nodeCrypto().randomBytes(32).toString('base64url');
    if (this.#sessions.size >= MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value as string);
    this.#sessions.set(hashOf(id), { principal: Object.freeze({ ...principal, via: 'session' }), expiresMs: Date.now() + this.#ttlMs });
    return id;
  }

  authenticate(id: string): Authentication {
    const key = hashOf(id);
    const session = this.#sessions.get(key);
    if (!session) return { status: 'unknown' };
    if (Date.now() >= session.expiresMs) {
      this.#sessions.delete(key);
      return { status: 'refused', reason: 'session expired: sign in again' };
    }
    return { status: 'ok', principal: session.principal };
  }

  close(id: string): boolean {
    return this.#sessions.delete(hashOf(id));
  }

  /** Expired sessions go when a new one opens: insertion order is expiry order (one TTL for all). */
  #sweep(): void {
    const now = Date.now();
    for (const [key, session] of this.#sessions) {
      if (session.expiresMs > now) break;
      this.#sessions.delete(key);
    }
  }
}
