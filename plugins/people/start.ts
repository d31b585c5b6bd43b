// Wires the people plugin (docs/people.md): the token registry over the state store, the sessions, the
// PEOPLE service the HTTP API asks, and the routes. Single sign-on's module (and the OpenID Connect client
// library behind it) loads only when --oidc-issuer is set.
import { type TidewatchCore } from '../../core/index.js';
import { STATE_STORE } from '../../contracts/index.js';
import { PEOPLE, type People } from './contracts.js';
import type { PeopleOptions } from './options.js';
import { SessionStore } from './sessions.js';
import { tokenRoutes } from './token-routes.js';
import { TokenRegistry } from './tokens.js';

export const SESSION_COOKIE = 'tidewatch_session';

function originOf(url: string): string | undefined {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

export async function startPeople(core: TidewatchCore, options: PeopleOptions): Promise<void> {
  const logger = core.logger.child({ plugin: 'people' });
  const tokens = new TokenRegistry(core.services.get(STATE_STORE));
  const sessions = new SessionStore(options.sessionTtlMs);
  const sso = options.oidcIssuer !== '';
  const publicOrigin = originOf(options.publicUrl);
  const people: People = {
    authenticateToken: (sha256) => tokens.authenticate(sha256),
    authenticateSession: (id) => sessions.authenticate(id),
    sessionCookie: SESSION_COOKIE,
    sso,
    ...(publicOrigin ? { publicOrigin } : {}),
  };
  core.services.provide(PEOPLE, people);
  tokenRoutes(core, tokens, logger);
  if (sso) {
    const { signInRoutes } = await import('./sign-in-routes.js');
    await signInRoutes(core, options, sessions, logger);
  }
  core.onClose(async () => tokens.close());
}
