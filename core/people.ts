// Who may do what through the HTTP API (docs/people.md): three roles, each route declaring the one it needs
// where it is registered, and the PEOPLE service through which the API asks the people plugin about a
// credential that is not the main token (a personal API token, a signed-in person's session). The API
// itself knows only its main token (an admin) and the events token; everything else is the plugin's.
import { defineService, type ServiceKey } from './services.js';
import type { Actor } from './types.js';

/** `viewer` reads, `operator` also acts on containers, `admin` also manages tokens and agents. */
export type Role = 'viewer' | 'operator' | 'admin';
export const ROLES: readonly Role[] = Object.freeze(['viewer', 'operator', 'admin']);

/** Whether `held` includes everything `needed` may do (roles are ordered: viewer < operator < admin). */
export function roleAllows(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}

/** An authenticated caller: who (for the audit trail and events) and with which role. */
export interface Principal {
  readonly actor: Actor;
  readonly role: Role;
  /** How the credential came: a header token, or a browser session cookie (judged for cross-origin use). */
  readonly via: 'token' | 'session';
}

/** What the people plugin makes of a credential: a caller, a refusal saying why, or nothing it knows. */
export type Authentication =
  | { readonly status: 'ok'; readonly principal: Principal }
  | { readonly status: 'refused'; readonly reason: string }
  | { readonly status: 'unknown' };

export interface People {
  /**
   * A bearer token's SHA-256 digest (the API hashes each presented token once, for the main token's check
   * too): a personal token's caller, `refused` when it expired or was revoked, `unknown` otherwise.
   */
  authenticateToken(sha256: Buffer): Authentication;
  /** A session cookie's value (docs/people.md#sessions). */
  authenticateSession(sessionId: string): Authentication;
  /** The cookie that carries a session. */
  readonly sessionCookie: string;
  /** Whether single sign-on is configured (the dashboard offers "Sign in with SSO"). */
  readonly sso: boolean;
  /** The origin of --public-url, where a session's pages are served from; absent when not set. */
  readonly publicOrigin?: string;
}

export const PEOPLE: ServiceKey<People> = defineService<People>('people');
