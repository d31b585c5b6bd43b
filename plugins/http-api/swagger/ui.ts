// The Swagger 2.0 description and its page (docs/http-api-contract.md §4.4, docs/interface.md §7), loaded at the first
// request under /swagger/ (swagger/routes.ts forwards it here). @fastify/swagger builds the description from the
// route schemas the server recorded (swagger/described.ts), so it cannot drift from what the routes validate and
// send; @fastify/swagger-ui serves the Swagger UI assets. Both run in a fastify instance of their own that holds
// the recorded routes without handlers and serves nothing but through the API's server. The page itself is ours:
// swagger-ui's initializer resolves the description relative to the page URL as a directory, which breaks at
// `/swagger/index.html`, the path Watchtower users bookmark; ours resolves `doc.json` beside the page.
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import YAML from 'yaml';
import type { DescribedRoutes } from './described.js';
import { SWAGGER_PREFIX } from './paths.js';

/**
 * The host and scheme the client reached the API's server by (its X-Forwarded-* only from trusted proxies),
 * decided there and passed in these headers, which that server never forwards from a client.
 */
export const DESCRIBE_HOST = 'x-tidewatch-describe-host';
export const DESCRIBE_SCHEME = 'x-tidewatch-describe-scheme';

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
async function registerSwaggerSpec(app: FastifyInstance): Promise<void> {
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

/** Host and scheme as the API's server decided them for this request. */
function describeFor(doc: SwaggerDocument, request: FastifyRequest): SwaggerDocument {
  const host = request.headers[DESCRIBE_HOST];
  if (typeof host === 'string' && host !== '') doc.host = host;
  const scheme = request.headers[DESCRIBE_SCHEME];
  doc.schemes = [scheme === 'https' ? 'https' : 'http'];
  return doc;
}

const noHandler = async () => undefined;

/** The description and the page, in an instance of their own: `inject` a request under /swagger/ into it. */
export async function swaggerApp(described: DescribedRoutes): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, exposeHeadRoutes: true });
  // Only described here, never called: nothing to validate or serialize.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await registerSwaggerSpec(app);
  for (const route of described.routes) {
    app.route({ method: route.method, url: route.url, schema: route.schema, config: route.config, exposeHeadRoute: false, handler: noHandler });
  }
  const document = (request: FastifyRequest) => describeFor(structuredClone(app.swagger() as unknown as SwaggerDocument), request);
  await app.register(fastifySwaggerUi, {
    routePrefix: SWAGGER_PREFIX,
    uiConfig: { persistAuthorization: false, tryItOutEnabled: true },
    validatorUrl: false,
    transformSpecification: (spec, request) => describeFor(spec as SwaggerDocument, request) as never,
  });
  const hidden = { schema: { hide: true } };
  app.get(`${SWAGGER_PREFIX}/index.html`, hidden, async (_request, reply) => reply.type('text/html; charset=utf-8').send(PAGE));
  app.get(`${SWAGGER_PREFIX}/page.js`, hidden, async (_request, reply) => reply.type('application/javascript; charset=utf-8').send(PAGE_SCRIPT));
  app.get(`${SWAGGER_PREFIX}/doc.json`, hidden, async (request, reply) =>
    reply.type('application/json; charset=utf-8').send(JSON.stringify(document(request))),
  );
  app.get(`${SWAGGER_PREFIX}/doc.yaml`, hidden, async (request, reply) =>
    reply.type('application/yaml; charset=utf-8').send(YAML.stringify(document(request))),
  );
  await app.ready();
  return app;
}
