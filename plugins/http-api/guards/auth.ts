// Token authentication (docs/http-api-contract.md §5). Where a token may come from differs by realm: the main token from
// the Authorization header, then the `access_token` cookie; the events token from the header, then
// the `access_token` query parameter (a browser EventSource can set neither headers nor, across
// origins, cookies). Tokens are compared as SHA-256 digests with timingSafeEqual, so neither the
// length nor the content of the secret leaks through response timing. Failures are logged with the
// client IP and never with what was sent.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { type Logger } from '../../../core/index.js';
import { bearerToken } from '../../../contracts/shared/bearer-token.js';
import type { ProxyTrust } from './client-ip.js';
import { sendError } from '../envelope.js';

export type Realm = 'main' | 'events';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

export class TokenGuard {
  readonly #expected: Buffer;
  readonly #realm: Realm;
  readonly #logger: Logger;
  readonly #proxies: ProxyTrust;

  constructor(token: string, realm: Realm, logger: Logger, proxies: ProxyTrust) {
    this.#expected = digest(token);
    this.#realm = realm;
    this.#logger = logger;
    this.#proxies = proxies;
  }

  /** The first credential the request presents; later sources are fallbacks, not second chances. */
  presented(request: FastifyRequest): string | undefined {
    // A header that is present decides, even empty: the fallbacks are for clients that cannot set
    // headers, not a second chance (docs/http-api.md#authentication). `Bearer <token>` or the raw value,
    // which Swagger UI sends for an apiKey scheme (contracts/shared/bearer-token.ts, shared with the webhook receivers).
    if (request.headers.authorization !== undefined) return bearerToken(request.headers.authorization);
    if (this.#realm === 'events') {
      const query = (request.query as Record<string, unknown> | undefined)?.access_token;
      const value = Array.isArray(query) ? query[0] : query;
      return typeof value === 'string' && value !== '' ? value : undefined;
    }
    const cookies = request.headers.cookie ? request.server.parseCookie(request.headers.cookie) : {};
    const cookie = cookies.access_token;
    return cookie === undefined || cookie === '' ? undefined : cookie;
  }

  matches(candidate: string | undefined): boolean {
    // Hash even when nothing was sent, so a missing token costs what a wrong one costs.
    const equal = timingSafeEqual(digest(candidate ?? ''), this.#expected);
    return candidate !== undefined && equal;
  }

  /** A route-level onRequest hook: runs after the limiter and CORS, before anything else the route does. */
  readonly hook: onRequestAsyncHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
    const candidate = this.presented(request);
    if (this.matches(candidate)) return;
    this.#logger.warn(
      {
        ip: this.#proxies.client(request).ip,
        method: request.method,
        path: request.routeOptions.url ?? request.url.split('?')[0],
        realm: this.#realm,
        reason: candidate === undefined ? 'missing token' : 'invalid token',
      },
      'HTTP API authentication failed',
    );
    return sendError(reply, 401, 'missing or invalid API token', 'TW_ERR_HTTP_UNAUTHORIZED');
  };
}
