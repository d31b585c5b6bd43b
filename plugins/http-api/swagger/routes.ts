// /swagger/ on the API's server: every GET or HEAD under it is answered by the Swagger page's own instance
// (swagger/ui.ts), built at the first such request, so that an idle service with the swagger endpoint on has
// loaded neither the description's generator nor Swagger UI (docs/performance.md#footprint).
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, InjectOptions } from 'fastify';
import type { ProxyTrust } from '../guards/client-ip.js';
import { PAGE_CSP } from '../content-security.js';
import type { RouteTable } from '../error-handling.js';
import type { DescribedRoutes } from './described.js';
import { SWAGGER_PREFIX } from './paths.js';

type SwaggerApp = Awaited<ReturnType<typeof import('./ui.js').swaggerApp>>;

/** Hop-by-hop headers, and the length the server sets itself for what it sends. */
const NOT_RELAYED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length']);

export function swaggerRoutes(proxies: ProxyTrust, routes: RouteTable, described: DescribedRoutes): FastifyPluginAsync {
  let built: Promise<{ app: SwaggerApp; host: string; scheme: string }> | undefined;
  const swagger = () => {
    built ??= import('./ui.js').then(async (ui) => ({ app: await ui.swaggerApp(described), host: ui.DESCRIBE_HOST, scheme: ui.DESCRIBE_SCHEME }));
    // A failed build is tried again at the next request rather than remembered.
    built.catch(() => (built = undefined));
    return built;
  };

  const relay = async (request: FastifyRequest, reply: FastifyReply) => {
    const { app, host, scheme } = await swagger();
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && name !== host && name !== scheme) headers[name] = value;
    }
    const reached = proxies.host(request);
    if (reached) headers[host] = reached;
    headers[scheme] = proxies.protocol(request);
    const answer = await app.inject({ method: request.method as InjectOptions['method'], url: request.url, headers });
    // The API's own 404, with its error shape, for a path under /swagger/ that the page does not have.
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !NOT_RELAYED.has(name)) reply.header(name, value);
    }
    reply.code(answer.statusCode);
    if (request.method === 'HEAD') {
      const length = answer.headers['content-length'];
      if (length !== undefined) reply.header('content-length', length);
      return reply.send();
    }
    return reply.send(answer.rawPayload);
  };

  return async (app) => {
    // Every answer under /swagger/ gets the dashboard's policy, frame-ancestors 'none' included: the page holds
    // the token a person pastes, and must not be framed by another site (docs/http-api.md#browsers-and-other-origins).
    // The token is not kept in localStorage either (persistAuthorization off): any script of this origin could read it.
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', PAGE_CSP).header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff');
      return payload;
    });
    // `/swagger` alone is 404; under `/swagger/` only GET and HEAD are served (405 for the rest).
    routes.remove(SWAGGER_PREFIX);
    routes.addPrefix(`${SWAGGER_PREFIX}/`, ['GET', 'HEAD']);
    app.route({ method: ['GET', 'HEAD'], url: `${SWAGGER_PREFIX}/*`, schema: { hide: true }, handler: relay });
  };
}
