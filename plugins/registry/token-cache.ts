// Bearer tokens, cached until shortly before they expire, per (realm, service, credentials) and the
// scopes they were asked for. A token is reused for another repository when the scopes it was issued
// for, or the `access` claims of its JWT, cover the new scope: that is how one token serves several
// repositories on registries whose token server grants more than was asked.

export interface IssuedToken {
  readonly token: string;
  /** Lifetime in seconds as the token server stated it (`expires_in`); 60 when absent. */
  readonly expiresIn: number;
}

interface CachedToken {
  readonly token: string;
  readonly scopes: ReadonlySet<string>;
  readonly grants: ReadonlySet<string>;
  readonly expiresAt: number;
}

/** Docker's token spec: a token lives at least 60 s. */
const DEFAULT_LIFETIME_S = 60;

/** `repository:a/b:pull,push` → [`repository:a/b:pull`, `repository:a/b:push`]; names may contain `:`. */
export function expandScope(scope: string): string[] {
  const out: string[] = [];
  for (const part of scope.split(/\s+/).filter(Boolean)) {
    const first = part.indexOf(':');
    const last = part.lastIndexOf(':');
    if (first === -1 || first === last) {
      out.push(part);
      continue;
    }
    const prefix = part.slice(0, last);
    for (const action of part.slice(last + 1).split(',').filter(Boolean)) out.push(`${prefix}:${action}`);
  }
  return out;
}

/** The `access` claims of a JWT (Docker's token format) as `type:name:action` strings; empty for opaque tokens. */
export function jwtGrants(token: string): Set<string> {
  const grants = new Set<string>();
  const parts = token.split('.');
  if (parts.length !== 3) return grants;
  try {
    const payload = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8')) as { access?: unknown };
    if (!Array.isArray(payload.access)) return grants;
    for (const entry of payload.access as { type?: unknown; name?: unknown; actions?: unknown }[]) {
      if (typeof entry?.type !== 'string' || typeof entry.name !== 'string' || !Array.isArray(entry.actions)) continue;
      for (const action of entry.actions) if (typeof action === 'string') grants.add(`${entry.type}:${entry.name}:${action}`);
    }
  } catch {
    // Not a JWT after all: the token is opaque and only serves the scopes it was asked for.
  }
  return grants;
}

function covers(entry: CachedToken, wanted: readonly string[]): boolean {
  return wanted.every((s) => entry.scopes.has(s) || entry.grants.has(s));
}

export class TokenCache {
  readonly #entries = new Map<string, CachedToken[]>();
  readonly #pending = new Map<string, Promise<string>>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** A live token covering `scope`, never `exclude` (a token the registry just refused). */
  find(key: string, scope: string, exclude?: string): string | undefined {
    const wanted = expandScope(scope);
    const now = this.#now();
    const live = (this.#entries.get(key) ?? []).filter((e) => e.expiresAt > now);
    this.#entries.set(key, live);
    return live.find((e) => e.token !== exclude && covers(e, wanted))?.token;
  }

  /**
   * The cached token for `scope`, or one fetched with `issue`; concurrent callers asking for the same
   * scope share one fetch.
   */
  async get(key: string, scope: string, issue: () => Promise<IssuedToken>, exclude?: string): Promise<string> {
    const cached = this.find(key, scope, exclude);
    if (cached) return cached;
    const pendingKey = `${key}\u0000${scope}`;
    let pending = this.#pending.get(pendingKey);
    if (!pending) {
      pending = issue()
        .then((issued) => this.#store(key, scope, issued))
        .finally(() => this.#pending.delete(pendingKey));
      this.#pending.set(pendingKey, pending);
    }
    return pending;
  }

  invalidate(key: string, token: string): void {
    const entries = this.#entries.get(key);
    if (entries) this.#entries.set(key, entries.filter((e) => e.token !== token));
  }

  #store(key: string, scope: string, issued: IssuedToken): string {
    const lifetime = issued.expiresIn > 0 ? issued.expiresIn : DEFAULT_LIFETIME_S;
    // Counted from receipt, not the server's `issued_at`: a skewed registry clock cannot make us use
    // an expired token. A margin keeps a token from expiring between lookup and use.
    const margin = Math.min(30_000, lifetime * 100);
    const entry: CachedToken = {
      token: issued.token,
      scopes: new Set(expandScope(scope)),
      grants: jwtGrants(issued.token),
      expiresAt: this.#now() + lifetime * 1000 - margin,
    };
    this.#entries.set(key, [...(this.#entries.get(key) ?? []), entry]);
    return issued.token;
  }
}
