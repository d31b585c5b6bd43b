// Who is calling and whether their role allows the route (docs/people.md#roles). Every protected route
// declares the role it needs beside its registration (`config: { role: 'operator' }`); this one onRequest
// hook reads it. A caller is the main token (an admin, docs/http-api.md#authentication), a personal API
// token, or a signed-in person's session cookie; the last two are the people plugin's, asked through the
// PEOPLE service. A presented token is hashed once: the main token's check and a personal token's lookup
// (a Map by that same hash) share the hash, so a personal token costs what the main token costs.
// Refusals are logged with who and the client IP, never with what was sent.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { roleAllows, type Actor, type Logger, type Principal, type Role } from '../../../core/index.js';
import { bearerToken } from '../../../contracts/shared/bearer-token.js';
import type { People } from '../../../contracts/index.js';
import type { ProxyTrust } from './client-ip.js';
import { sendError } from '../envelope.js';
import { crossOriginRefusal } from './session-origin.js';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** The main token's caller: the bootstrap admin credential (docs/people.md#the-main-token-and-the-events-token). */
export const MAIN_PRINCIPAL: Principal = Object.freeze({ actor: Object.freeze({ kind: 'token', name: 'main' } as const), role: 'admin', via: 'token' });

const principals = new WeakMap<FastifyRequest, Principal>();

/** The authenticated caller of a request that passed the access hook. */
export function principalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}

/** The caller's actor as a run request's field (`{ actor }`), empty when unknown. */
export function actorOf(request: FastifyRequest): { actor?: Actor } {
  const principal = principals.get(request);
  return principal ? { actor: principal.actor } : {};
}

/** The role a route declared in its `config`, admin when a protected route forgot to say (the safe side). */
export function declaredRole(request: FastifyRequest): Role {
  const role = (request.routeOptions.config as { role?: unknown } | undefined)?.role;
  return role === 'viewer' || role === 'operator' || role === 'admin' ? role : 'admin';
}

export interface AccessOptions {
  /** The main token (--http-api-token); absent when no protected endpoint is enabled. */
  readonly mainToken?: string;
  readonly people?: People;
  readonly logger: Logger;
  readonly proxies: ProxyTrust;
  /** Origins allowed besides the API's own (--http-api-cors-origins, and the public URL's). */
  readonly origins: readonly string[];
}

type Credential = { kind: 'token'; value: string | undefined } | { kind: 'session'; value: string };

export class AccessGuard {
  readonly #expected: Buffer | undefined;
  readonly #options: AccessOptions;

  constructor(options: AccessOptions) {
    this.#options = options;
    this.#expected = options.mainToken ? digest(options.mainToken) : undefined;
  }

  /**
   * The first credential the request presents: the Authorization header decides when present (even empty),
   * then the main token's `access_token` cookie, then a session cookie.
   */
  #credential(request: FastifyRequest): Credential {
    if (request.headers.authorization !== undefined) return { kind: 'token', value: bearerToken(request.headers.authorization) };
    if (!request.headers.cookie) return { kind: 'token', value: undefined };
    const cookies = request.server.parseCookie(request.headers.cookie);
    if (cookies.access_token) return { kind: 'token', value: cookies.access_token };
    const people = this.#options.people;
    const session = people ? cookies[people.sessionCookie] : undefined;
    return session ? { kind: 'session', value: session } : { kind: 'token', value: undefined };
  }

  /** A token's caller, or the reason it was refused. */
  #token(value: string | undefined): Principal | string {
    // Hash even when nothing was sent, so a missing token costs what a wrong one costs.
    const hash = digest(value ?? '');
    if (value === undefined) return 'missing token';
    if (this.#expected && timingSafeEqual(hash, this.#expected)) return MAIN_PRINCIPAL;
    const known = this.#options.people?.authenticateToken(hash);
    if (known?.status === 'ok') return known.principal;
    if (known?.status === 'refused') return known.reason;
    return 'invalid token';
  }

  /** Who is calling, or why nobody is; no role is judged here (the dashboard's "who am I"). */
  identify(request: FastifyRequest): Principal | string {
    const credential = this.#credential(request);
    if (credential.kind === 'token') return this.#token(credential.value);
    const known = this.#options.people?.authenticateSession(credential.value);
    if (known?.status === 'ok') return known.principal;
    return known?.status === 'refused' ? known.reason : 'invalid session';
  }

  #log(request: FastifyRequest, fields: Record<string, unknown>, message: string): void {
    this.#options.logger.warn(
      { ip: this.#options.proxies.client(request).ip, method: request.method, path: request.routeOptions.url ?? request.url.split('?')[0], ...fields },
      message,
    );
  }

  /** The route-level onRequest hook: runs after the limiter and CORS, before anything else the route does. */
  readonly hook: onRequestAsyncHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const found = this.identify(request);
    if (typeof found === 'string') {
      this.#log(request, { realm: 'main', reason: found }, 'HTTP API authentication failed');
      return sendError(reply, 401, unauthorizedMessage(found), 'TW_ERR_HTTP_UNAUTHORIZED');
    }
    if (found.via === 'session') {
      // A cookie rides along with any request the browser sends: a state-changing one must come from our
      // own pages (docs/security.md, sessions).
      const refusal = crossOriginRefusal(request, this.#options.origins);
      if (refusal) {
        this.#log(request, { who: found.actor, reason: refusal }, 'HTTP API session request refused');
        return sendError(reply, 403, refusal, 'TW_ERR_HTTP_CROSS_ORIGIN');
      }
    }
    const needed = declaredRole(request);
    if (!roleAllows(found.role, needed)) {
      this.#log(request, { who: found.actor, role: found.role, needed }, 'HTTP API request refused: role');
      return sendError(reply, 403, `role ${needed} required`, 'TW_ERR_HTTP_FORBIDDEN');
    }
    principals.set(request, found);
  };
}

/** What a refused caller reads: an expired or revoked token says so (docs/people.md#personal-api-tokens). */
function unauthorizedMessage(reason: string): string {
  if (reason === 'missing token' || reason === 'invalid token') return 'missing or invalid API token';
  return reason;
}
