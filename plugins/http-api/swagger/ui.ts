// The Swagger 2.0 description and its page (docs/http-api-contract.md §4.4, docs/interface.md §7). @fastify/swagger builds the
// description from the route schemas (so it cannot drift from what the routes validate and send);
// @fastify/swagger-ui serves the Swagger UI assets. The page itself is ours: swagger-ui's initializer
// resolves the description relative to the page URL as a directory, which breaks at
// `/swagger/index.html`, the path Watchtower users bookmark; ours resolves `doc.json` beside the page.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import YAML from 'yaml';
import type { ProxyTrust } from './guards/client-ip.js';
import { PAGE_CSP } from './content-security.js';
import { pathOf, type RouteTable } from './error-handling.js';

import { SWAGGER_PREFIX } from './swagger-paths.js';

export { SWAGGER_PREFIX, rewriteSwaggerRoot } from './swagger-paths.js';

type SwaggerDocument = Record<string, unknown> & { paths?: Record<string, Record<string, { parameters?: Record<string, unknown>[] }>> };

const securityDefinitions = {
  BearerAuth: {
    type: 'apiKey' as const,
    in: 'header',
    name: 'Authorization',
    description: 'Main token (--http-api-token). In this page enter the token only, without "Bearer".',
  },
  EventsToken: {
    type: 'apiKey' as const,
    in: 'header',
    name: 'Authorization',
    description: 'Events token (--http-api-events-token), for /v1/events. Enter the token only.',
  },
  WebhookToken: {
    type: 'apiKey' as const,
    in: 'header',
    name: 'Authorization',
    description: "A webhook receiver's own token (--webhook NAME=KIND,token=…), for /v1/hooks/{receiver}. Enter the token only.",
  },
};

/** Repeatable query parameters are sent as `?image=a&image=b`: Swagger 2.0 calls that `multi`. */
function markRepeatable(doc: SwaggerDocument): SwaggerDocument {
  for (const operations of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'query' && parameter.type === 'array') parameter.collectionFormat = 'multi';
      }
    }
  }
  return doc;
}

/** Registers the description generator; must run before the routes it describes are added. */
export async function registerSwaggerSpec(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    swagger: {
      info: {
        title: 'Tidewatch HTTP API',
        description:
          'Trigger and check container updates, follow events, read metrics, status, configuration, containers, images and history. ' +
          'Protected endpoints take the main token; /v1/events takes the events token.',
        version: '1.0',
      },
      basePath: '/',
      schemes: ['http', 'https'],
      consumes: ['application/json'],
      produces: ['application/json'],
      securityDefinitions,
      tags: [
        { name: 'updates', description: 'Update and check runs' },
        { name: 'events', description: 'Server-Sent Events' },
        { name: 'metrics', description: 'Prometheus metrics' },
        { name: 'containers', description: 'Monitored containers' },
        { name: 'config', description: 'Effective configuration' },
        { name: 'history', description: 'Past runs' },
        { name: 'images', description: 'Images of the monitored containers' },
        { name: 'health', description: 'Health probes' },
        { name: 'webhooks', description: 'Inbound webhooks from registries and Git hosts (docs/webhooks.md)' },
      ],
    },
    transformObject: (documents) =>
      ('swaggerObject' in documents ? markRepeatable(documents.swaggerObject as SwaggerDocument) : documents.openapiObject) as never,
  });
}

/** The page; the same HTML at `/swagger/` and `/swagger/index.html`, both beside `doc.json`. */
const PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<title>Tidewatch HTTP API</title>
<link rel="stylesheet" type="text/css" href="./static/swagger-ui.css">
<link rel="stylesheet" type="text/css" href="./static/index.css">
<link rel="icon" type="image/png" href="./static/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<script src="./static/swagger-ui-bundle.js" charset="UTF-8"></script>
<script src="./static/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
<script src="./page.js" charset="UTF-8"></script>
</body>
</html>
`;

const PAGE_SCRIPT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: new URL('doc.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: 'StandaloneLayout',
    validatorUrl: null,
    persistAuthorization: false,
    tryItOutEnabled: true
  });
};
`;

export function swaggerRoutes(proxies: ProxyTrust, routes: RouteTable): FastifyPluginAsync {
  /** Host and scheme as the client reached us; X-Forwarded-* only from trusted proxies. */
  const describeFor = (doc: SwaggerDocument, request: FastifyRequest): SwaggerDocument => {
    const host = proxies.host(request);
    if (host) doc.host = host;
    doc.schemes = [proxies.protocol(request)];
    return doc;
  };
  const document = (app: FastifyInstance, request: FastifyRequest) =>
    describeFor(structuredClone(app.swagger() as unknown as SwaggerDocument), request);

  return async (app) => {
    // Every answer under /swagger/ gets the dashboard's policy, frame-ancestors 'none' included: the page holds
    // the token a person pastes, and must not be framed by another site (docs/http-api.md#browsers-and-other-origins).
    // The token is not kept in localStorage either (persistAuthorization off): any script of this origin could read it.
    app.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', PAGE_CSP).header('x-frame-options', 'DENY').header('x-content-type-options', 'nosniff');
      return payload;
    });
    await app.register(fastifySwaggerUi, {
      routePrefix: SWAGGER_PREFIX,
      uiConfig: { persistAuthorization: false, tryItOutEnabled: true },
      validatorUrl: false,
      transformSpecification: (spec, request) => describeFor(spec as SwaggerDocument, request) as never,
      uiHooks: {
        // swagger-ui also answers the bare prefix; the spec wants `/swagger` alone to be 404.
        onRequest: (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
          if (pathOf(request) === SWAGGER_PREFIX) return reply.callNotFound();
          done();
        },
      },
    });
    routes.remove(SWAGGER_PREFIX);
    routes.addPrefix(`${SWAGGER_PREFIX}/`, ['GET', 'HEAD']);

    const hidden = { schema: { hide: true } };
    app.get(`${SWAGGER_PREFIX}/index.html`, hidden, async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
    app.get(`${SWAGGER_PREFIX}/page.js`, hidden, async (_request, reply) =>
      reply.type('application/javascript; charset=utf-8').send(PAGE_SCRIPT),
    );
    app.get(`${SWAGGER_PREFIX}/doc.json`, hidden, async (request, reply) =>
      reply.type('application/json; charset=utf-8').send(JSON.stringify(document(app, request))),
    );
    app.get(`${SWAGGER_PREFIX}/doc.yaml`, hidden, async (request, reply) =>
      reply.type('application/yaml; charset=utf-8').send(YAML.stringify(document(app, request))),
    );
  };
}

