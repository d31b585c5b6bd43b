// Routes other plugins contribute through the core's HTTP_ROUTES registration point (docs/plugins.md#http-routes),
// served like the API's own: after the per-IP limiter and CORS, under the JSON error shape. Each route takes its
// body raw (an HMAC is computed over the exact bytes) up to its own limit, refused with 413 before it is read
// when the declared length is larger. The route authenticates its callers itself (webhook receivers hold their
// own tokens); nothing here logs a request's path, which may carry a token (docs/webhooks.md#authentication).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { errorMessage, httpRoutes, type HttpRouteDefinition, type HttpRouteResponse } from '../../../core/index.js';
import { requireMainGuard, type RouteContext } from '../context.js';
import { envelope, sendError } from '../envelope.js';
import { codeOf } from '../error-handling.js';
import type { Endpoint } from '../options.js';

/** Query parameters, a repeated one by its first value (what a contributed route sees). */
function queryMap(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries((request.query ?? {}) as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') out[name] = first;
  }
  return out;
}

/**
 * The Content-Type each request arrived with. fastify answers 415 by itself for a header it cannot parse
 * (`application/`, `a b`, an empty one), before any handler, so a sender with a wrong token and an odd type
 * would never meet the route's authentication. A contributed route judges media types itself, after its
 * credentials (docs/webhooks.md#authentication): fastify is shown a neutral type, the route the one sent.
 */
const declaredTypes = new WeakMap<FastifyRequest, string>();
const NEUTRAL_TYPE = 'application/octet-stream';

function keepDeclaredType(request: FastifyRequest): void {
  const declared = request.headers['content-type'];
  if (declared === undefined) return;
  declaredTypes.set(request, declared);
  request.raw.headers['content-type'] = NEUTRAL_TYPE;
}

function headerMap(request: FastifyRequest): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(request.headers)) out[name] = Array.isArray(value) ? value[0] : value;
  if (declaredTypes.has(request)) out['content-type'] = declaredTypes.get(request);
  return out;
}

/** The route counts what the API refused on its behalf; a throw there must not turn a 413 into a 500. */
function tellRefused(route: HttpRouteDefinition | undefined, request: FastifyRequest, status: number): void {
  try {
    route?.refused?.({ params: { ...(request.params as Record<string, string>) }, status });
  } catch {
    // Counting is best effort; the answer stays the 413.
  }
}

function send(reply: FastifyReply, response: HttpRouteResponse): FastifyReply {
  for (const [name, value] of Object.entries(response.headers ?? {})) reply.header(name, value);
  if (response.error) return sendError(reply, response.status, response.error.message, response.error.code);
  return reply.code(response.status).type('application/json; charset=utf-8').send(envelope({ ...(response.body ?? {}) }));
}

export function contributedRoutes(ctx: RouteContext, endpoint: Endpoint): FastifyPluginAsync {
  const routes = httpRoutes(ctx.core.services).take(endpoint);
  const logger = ctx.core.logger.child({ plugin: 'http-api' });
  const byPattern = new Map(routes.map((r) => [`${r.method} ${r.url}`, r]));
  return async (app) => {
    // Encapsulated: only these routes take raw bodies of any media type; each route says which it accepts.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    // The server's handler logs the path of a 5xx; here the path may hold a token, so only the pattern is logged.
    app.setErrorHandler((err: unknown, request, reply) => {
      const raw = (err as { statusCode?: unknown }).statusCode;
      const status = typeof raw === 'number' && raw >= 400 && raw <= 599 ? raw : 500;
      // A body without a declared length that outgrows the limit while read (chunked) ends here, not in onRequest.
      if (status === 413) tellRefused(byPattern.get(`${request.method} ${request.routeOptions.url}`), request, 413);
      if (status >= 500) {
        logger.error({ route: request.routeOptions.url, err: errorMessage(err) }, 'HTTP API request failed');
        return sendError(reply, 500, 'internal server error', 'TW_ERR_INTERNAL');
      }
      return sendError(reply, status, errorMessage(err), codeOf(err, status));
    });
    for (const route of routes) register(app, route);
  };

  function register(app: Parameters<FastifyPluginAsync>[0], route: HttpRouteDefinition): void {
    const name = `${route.method} ${route.url}`;
    app.route({
      method: route.method,
      url: route.url,
      bodyLimit: route.bodyLimit,
      ...(route.schema ? { schema: route.schema } : {}),
      onRequest: async (request, reply) => {
        // A route behind the main token (docs/plugins.md#http-routes): authenticated before anything else.
        if (route.auth === 'main') {
          await requireMainGuard(ctx).hook.call(app, request, reply);
          if (reply.sent) return reply;
        }
        const length = Number(request.headers['content-length'] ?? 0);
        if (length > route.bodyLimit) {
          tellRefused(route, request, 413);
          return sendError(reply, 413, `request body is larger than ${route.bodyLimit} bytes`, 'TW_ERR_HTTP_BODY_TOO_LARGE');
        }
        keepDeclaredType(request);
      },
      handler: async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        try {
          const response = await route.handle({
            params: { ...(request.params as Record<string, string>) },
            query: queryMap(request),
            headers: headerMap(request),
            body,
            ip: ctx.proxies.client(request).ip,
          });
          return send(reply, response);
        } catch (err) {
          // The route's pattern, never the URL: a path parameter may be a token.
          logger.error({ route: name, err: errorMessage(err) }, 'HTTP API request failed');
          return sendError(reply, 500, 'internal server error', 'TW_ERR_INTERNAL');
        }
      },
    });
  }
}
