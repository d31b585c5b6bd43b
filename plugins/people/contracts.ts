// The people plugin's contract with other plugins (docs/plugins.md#contracts): the PEOPLE service through which
// the HTTP API asks about a credential that is not the main token (a personal API token, a signed-in person's
// session). The API itself knows only its main token (an admin) and the events token; everything else is the
// plugin's. Its key and types live here and reach other plugins through the contracts entry (contracts/index.ts).
import { defineService, type Principal, type ServiceKey } from '../../core/index.js';

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
