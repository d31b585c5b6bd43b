// Builds the fastify instance: the global order of docs/http-api-contract.md §4 and §5.4 (rate limiter first, then CORS,
// then per-route authentication), the 1 MiB body limit, the JSON error shape, and one encapsulated
// plugin per enabled endpoint, so that a disabled endpoint has no route at all (and answers 404).
import { TidewatchError, type TidewatchCore, httpRoutes } from '../../core/index.js';
import { UPDATE_POLICIES, PEOPLE, STATE_STORE } from '../../contracts/index.js';
import { readFileSync } from 'node:fs';
import fastifyCookie from '@fastify/cookie';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { TokenGuard } from './guards/auth.js';
import { ProxyTrust } from './guards/client-ip.js';
import { AccessGuard } from './guards/access.js';
import { meRoutes } from './routes/me.js';

import { AccessTable } from './access-table.js';
import type { RouteContext } from './context.js';
import { sendError } from './envelope.js';
import { ConnectionLedger } from './guards/client-errors.js';
import { frameworkErrors, installErrorHandling, RouteTable } from './error-handling.js';
import { PROTECTED_ENDPOINTS, type Endpoint, type ResolvedHttpApiOptions } from './options.js';
import { SlidingWindowLimiter } from './guards/rate-limit.js';
import { registerCors } from './guards/cors.js';
import { installBrowserOriginRule } from './browser-origin.js';
import { EventHub } from './event-hub.js';
import type { ApiMetrics } from './metrics.js';
import { checkRoutes } from './routes/check.js';
import { configRoutes } from './routes/config.js';
import { LastChecks, storeState, type KnownState } from './last-checks.js';
import { containerDetailsRoutes } from './routes/container-details.js';
import { containerRoutes } from './routes/containers.js';
import { contributedRoutes } from './routes/contributed.js';
import { eventRoutes } from './routes/events.js';
import { healthRoutes } from './routes/health.js';
import { historyRoutes } from './routes/history.js';
import { auditRoutes } from './routes/audit.js';
import { snapshotRoutes } from './routes/snapshots.js';
import { rollbackRoutes } from './routes/rollback.js';
import { imageRoutes } from './routes/images.js';
import { statusRoutes } from './routes/status.js';
import { planRoutes } from './routes/plan.js';
import { updateRoutes } from './routes/update.js';
import { RunStarts } from './run-starts.js';
import { rewriteSwaggerRoot } from './swagger/paths.js';
import { DescribedRoutes } from './swagger/described.js';
import { swaggerRoutes } from './swagger/routes.js';
import { NODE_TIMEOUTS, timeoutOptions } from './guards/timeouts.js';
import { serveUpgrades } from './upgrades.js';

export const BODY_LIMIT = 1024 * 1024;

/** What the route modules share and the event bus feeds: each part exists only when its endpoint is enabled. */
interface EventConsumers {
  readonly hub?: EventHub;
  readonly metrics?: ApiMetrics;
  readonly starts?: RunStarts;
  /** Each container's last check answer and hold, for the container lists (docs/state.md). */
  readonly known?: KnownState;
}

/** One endpoint name that enables several routes (`metrics`, `containers`). */
function together(...modules: FastifyPluginAsync[]): FastifyPluginAsync {
  return async (app) => {
    for (const module of modules) await app.register(module);
  };
}

/**
 * Route modules per endpoint; health is not listed: the probes exist whenever the server runs. The
 * optional parts (metrics registry, Swagger UI assets) load only when their endpoint is enabled
 * (docs/performance.md#footprint).
 */
async function routeModule(
  endpoint: Endpoint,
  ctx: RouteContext,
  consumers: EventConsumers,
  routes: RouteTable,
  described: DescribedRoutes | undefined,
): Promise<FastifyPluginAsync | undefined> {
  switch (endpoint) {
    case 'check':
      return checkRoutes(ctx, consumers.known);
    case 'update':
      // A plan is applied through /v1/update?plan=ID: the two come together (docs/plans.md).
      return together(updateRoutes(ctx, consumers.starts as RunStarts), planRoutes(ctx));
    case 'events':
      return eventRoutes(ctx, consumers.hub as EventHub);
    case 'metrics':
      return together((await import('./routes/metrics.js')).metricsRoutes(ctx, consumers.metrics as ApiMetrics), statusRoutes(ctx));
    case 'containers':
      return together(containerRoutes(ctx, consumers.known), containerDetailsRoutes(ctx, consumers.known as KnownState));
    case 'images':
      return imageRoutes(ctx);
    case 'config':
      return configRoutes(ctx);
    case 'history':
      return historyRoutes(ctx);
    case 'audit':
      return auditRoutes(ctx);
    case 'snapshots':
      return snapshotRoutes(ctx);
    case 'rollback':
      return rollbackRoutes(ctx);
    case 'swagger':
      return swaggerRoutes(ctx.proxies, routes, described as DescribedRoutes);
    case 'dashboard':
      // Signing in is the dashboard's: "who am I" and, from the people plugin, single sign-on (docs/people.md).
      return together((await import('./dashboard/routes-dashboard.js')).dashboardRoutes(), meRoutes(ctx), contributedRoutes(ctx, endpoint));
    case 'hooks':
    case 'approvals':
    case 'rollouts':
    case 'tokens':
    case 'agents':
      return contributedRoutes(ctx, endpoint);
    case 'health':
      return undefined;
  }
}

/** The state store when the state plugin provides it (docs/state.md), else what /v1/check finds, in memory. */
function knownState(core: TidewatchCore, enabled: ReadonlySet<Endpoint>): KnownState | undefined {
  const store = core.services.get(STATE_STORE);
  if (store) return storeState(store);
  return enabled.has('containers') ? new LastChecks() : undefined;
}

function tlsOptions(options: ResolvedHttpApiOptions): { cert: Buffer; key: Buffer } | undefined {
  if (!options.tlsCert || !options.tlsKey) return undefined;
  return { cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) };
}

export interface BuiltServer {
  readonly app: FastifyInstance;
  readonly routes: RouteTable;
  /** Each route's declared role or access rule (docs/http-api.md#roles), as registered. */
  readonly access: AccessTable;
  /** Stops timers the server owns; `app.close()` is registered by the caller. */
  readonly dispose: () => void;
}

export async function buildServer(core: TidewatchCore, options: ResolvedHttpApiOptions): Promise<BuiltServer> {
  const enabled = new Set(options.endpoints);
  const https = tlsOptions(options);
  const connections = new ConnectionLedger();
  const base = { ...serverOptions(enabled.has('swagger')), ...timeoutOptions(), clientErrorHandler: connections.onClientError, frameworkErrors };
  const app = (https ? Fastify({ ...base, https: { ...https, ...NODE_TIMEOUTS } }) : Fastify(base)) as unknown as FastifyInstance;
  app.server.on('request', connections.track);
  app.server.on('connect', connections.onConnect);
  // Shutdown cuts the connections still waiting for an answer: their runs end as the server's doing.
  app.addHook('preClose', async () => connections.closingAll());
  const routes = new RouteTable();
  const proxies = new ProxyTrust(options.trustedProxies, options.proxyHeader);
  const logger = core.logger.child({ plugin: 'http-api' });
  const needsMain = options.endpoints.some((e) => PROTECTED_ENDPOINTS.includes(e));
  const people = core.services.get(PEOPLE);
  const origins = [...options.corsOrigins, ...(people?.publicOrigin ? [people.publicOrigin] : [])];
  const ctx: RouteContext = {
    core,
    options,
    proxies,
    access: needsMain && options.token ? new AccessGuard({ mainToken: options.token, people, logger, proxies, origins }) : undefined,
    eventsGuard:
      enabled.has('events') && options.eventsToken ? new TokenGuard(options.eventsToken, 'events', logger, proxies) : undefined,
  };

  installErrorHandling(app, routes, logger);
  const access = new AccessTable();
  app.addHook('onRoute', (route) => access.add(route));

  const consumers: EventConsumers = {
    hub: enabled.has('events') ? new EventHub({ logger, pingIntervalMs: options.eventsPingIntervalMs }) : undefined,
    metrics: enabled.has('metrics')
      ? new (await import('./metrics.js')).ApiMetrics({
          pendingApprovals: () => core.services.get(UPDATE_POLICIES)?.approvals().filter((a) => a.state === 'pending').length ?? 0,
        })
      : undefined,
    starts: enabled.has('update') ? new RunStarts() : undefined,
    known: knownState(core, enabled),
  };
  let closed = false;
  // One tap for the server's lifetime; the hook cannot be untapped, so a closed server ignores it.
  core.hooks.event.tap('http-api', (event) => {
    if (closed) return;
    consumers.starts?.onEvent(event);
    consumers.metrics?.onEvent(event);
    consumers.hub?.publish(event);
  });

  // 1. The limiter sees every request first, authenticated or not, routed or not (docs/http-api-contract.md §8.1).
  const limiter = options.rateLimit > 0 ? new SlidingWindowLimiter(options.rateLimit) : undefined;
  if (limiter) {
    app.addHook('onRequest', async (request, reply) => {
      const decision = limiter.take(proxies.client(request).ip);
      if (decision.allowed) return;
      // The one error without a body (docs/interface.md §4).
      return reply.code(429).header('Retry-After', String(decision.retryAfterSeconds)).send();
    });
  }

  // 2. A declared body above the limit is refused before anything reads it, on every route: fastify
  // itself only checks bodies it parses, and it parses none for GET.
  app.addHook('onRequest', async (request, reply) => {
    const length = Number(request.headers['content-length'] ?? 0);
    if (length > BODY_LIMIT) return sendError(reply, 413, `request body is larger than ${BODY_LIMIT} bytes`, 'TW_ERR_HTTP_BODY_TOO_LARGE');
  });

  // 2b. Browsers: no state change from another origin, whatever the credential (browser-origin.ts).
  installBrowserOriginRule(app, proxies, options.corsOrigins, logger);

  // No endpoint reads a body; accept (and bound) any media type instead of answering 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, _body, done) => done(null, undefined));

  // 3. CORS, after the limiter and before the routes' authentication (docs/http-api-contract.md §5.4).
  await registerCors(app, options.corsOrigins);
  await app.register(fastifyCookie, { hook: false });
  if (enabled.has('events')) {
    const { fastifySSE } = await import('@fastify/sse');
    await app.register(fastifySSE, { heartbeatInterval: 0 });
  }
  // The description is made of every route, recorded as it is added (swagger/described.ts).
  const described = enabled.has('swagger') ? DescribedRoutes.recordFrom(app) : undefined;

  // Upgrades (the agents' tunnel, docs/fleet.md) of the enabled endpoints, under the same rate limiter.
  const upgrades = options.endpoints.flatMap((endpoint) => httpRoutes(core.services).takeUpgrades(endpoint));
  if (upgrades.length > 0) {
    const cut = serveUpgrades(app.server, upgrades, limiter, logger);
    app.addHook('preClose', async () => cut());
  }

  await app.register(healthRoutes(ctx));
  for (const endpoint of options.endpoints) {
    const module = await routeModule(endpoint, ctx, consumers, routes, described);
    if (module) await app.register(module);
  }

  return {
    app,
    routes,
    access,
    dispose: () => {
      closed = true;
      limiter?.close();
      consumers.hub?.close();
    },
  };
}

function serverOptions(swagger: boolean) {
  return {
    ...(swagger ? { rewriteUrl: (req: { url?: string }) => rewriteSwaggerRoot(req.url ?? '/') } : {}),
    logger: false,
    bodyLimit: BODY_LIMIT,
    // SSE streams never end by themselves: close them on shutdown instead of waiting forever.
    forceCloseConnections: true,
    return503OnClosing: true,
    // "invalid 'async' parameter: …", the wording of the handlers' own query checks.
    schemaErrorFormatter: (errors: readonly { instancePath: string; message?: string; params?: Record<string, unknown> }[], dataVar: string) => {
      const [first] = errors;
      const name = first?.instancePath.replace(/^\//, '').split('/')[0] || dataVar;
      const allowed = first?.params?.allowedValues;
      const detail = Array.isArray(allowed) ? `expected one of ${allowed.join(', ')}` : (first?.message ?? 'invalid');
      return new TidewatchError('TW_ERR_HTTP_BAD_REQUEST', `invalid '${name}' parameter: ${detail}`, 400);
    },
    // Watchtower's router is strict and case-sensitive: /v1/check/ and /V1/check are not /v1/check.
    routerOptions: { ignoreTrailingSlash: false, caseSensitive: true },
  } as const;
}
