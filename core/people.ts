// Who may do what through the HTTP API (docs/people.md): three roles, each route declaring the one it needs
// where it is registered (http-routes.ts), and the authenticated caller a route is handed. How a credential
// that is not the main token becomes a caller is the people plugin's contract (plugins/people/contracts.ts).
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
