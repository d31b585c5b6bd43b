// Builds the fastify instance: the global order of spec §4 and §5.4 (rate limiter first, then CORS,
// then per-route authentication), the 1 MiB body limit, the JSON error shape, and one encapsulated
// plugin per enabled endpoint, so that a disabled endpoint has no route at all (and answers 404).
import { readFileSync } from 'node:fs';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { TidewatchCore } from '../../core/index.js';
import { TokenGuard } from './auth.js';
import { ProxyTrust } from './client-ip.js';
import type { RouteContext } from './context.js';
import { sendError } from './envelope.js';
import { installErrorHandling, RouteTable } from './error-handling.js';
import { PROTECTED_ENDPOINTS, type Endpoint, type ResolvedHttpApiOptions } from './options.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { checkRoutes } from './routes-check.js';
import { healthRoutes } from './routes-health.js';

export const BODY_LIMIT = 1024 * 1024;

/** Route modules per endpoint; health is not listed: the probes exist whenever the server runs. */
const ROUTES: Partial<Record<Endpoint, (ctx: RouteContext) => FastifyPluginAsync>> = {
  check: checkRoutes,
};

function tlsOptions(options: ResolvedHttpApiOptions): { cert: Buffer; key: Buffer } | undefined {
  if (!options.tlsCert || !options.tlsKey) return undefined;
  return { cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) };
}

export interface BuiltServer {
  readonly app: FastifyInstance;
  readonly routes: RouteTable;
  /** Stops timers the server owns; `app.close()` is registered by the caller. */
  readonly dispose: () => void;
}

export async function buildServer(core: TidewatchCore, options: ResolvedHttpApiOptions): Promise<BuiltServer> {
  const https = tlsOptions(options);
  const app = (https ? Fastify({ https, ...serverOptions() }) : Fastify(serverOptions())) as unknown as FastifyInstance;
  const routes = new RouteTable();
  const proxies = new ProxyTrust(options.trustedProxies, options.proxyHeader);
  const logger = core.logger.child({ plugin: 'http-api' });
  const enabled = new Set(options.endpoints);
  const needsMain = options.endpoints.some((e) => PROTECTED_ENDPOINTS.includes(e));
  const ctx: RouteContext = {
    core,
    options,
    proxies,
    mainGuard: needsMain && options.token ? new TokenGuard(options.token, 'main', logger, proxies) : undefined,
    eventsGuard:
      enabled.has('events') && options.eventsToken ? new TokenGuard(options.eventsToken, 'events', logger, proxies) : undefined,
  };

  installErrorHandling(app, routes, logger);

  // 1. The limiter sees every request first, authenticated or not, routed or not (spec §8.1).
  const limiter = options.rateLimit > 0 ? new SlidingWindowLimiter(options.rateLimit) : undefined;
  if (limiter) {
    app.addHook('onRequest', async (request, reply) => {
      const decision = limiter.take(proxies.client(request).ip);
      if (decision.allowed) return;
      // The one error without a body (decisions.md §4).
      return reply.code(429).header('Retry-After', String(decision.retryAfterSeconds)).send();
    });
  }

  // 2. A declared body above the limit is refused before anything reads it, on every route: fastify
  // itself only checks bodies it parses, and it parses none for GET.
  app.addHook('onRequest', async (request, reply) => {
    const length = Number(request.headers['content-length'] ?? 0);
    if (length > BODY_LIMIT) return sendError(reply, 413, `request body is larger than ${BODY_LIMIT} bytes`);
  });

  // No endpoint reads a body; accept (and bound) any media type instead of answering 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, _body, done) => done(null, undefined));

  await app.register(fastifyCookie, { hook: false });

  await app.register(healthRoutes(ctx));
  for (const endpoint of options.endpoints) {
    const routesOf = ROUTES[endpoint];
    if (routesOf) await app.register(routesOf(ctx));
  }

  return { app, routes, dispose: () => limiter?.close() };
}

function serverOptions() {
  return {
    logger: false,
    bodyLimit: BODY_LIMIT,
    // SSE streams never end by themselves: close them on shutdown instead of waiting forever.
    forceCloseConnections: true,
    return503OnClosing: true,
    // Watchtower's router is strict and case-sensitive: /v1/check/ and /V1/check are not /v1/check.
    routerOptions: { ignoreTrailingSlash: false, caseSensitive: true },
  } as const;
}
