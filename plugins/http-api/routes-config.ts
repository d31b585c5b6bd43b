// GET /v1/config (decisions.md §4): the effective configuration as the server redacted it. The
// plugin only serves it; what is secret is decided where the option table is.
import type { FastifyPluginAsync } from 'fastify';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from './context.js';
import { envelope, envelopeProperties, errorResponse } from './envelope.js';

export function configRoutes(ctx: RouteContext): FastifyPluginAsync {
  const guard = requireMainGuard(ctx);
  const config = ctx.options.configView ?? {};
  return async (app) => {
    app.get(
      '/v1/config',
      {
        onRequest: guard.hook,
        schema: {
          summary: 'Effective configuration',
          description: 'Every effective option; secrets are shown as "<redacted>".',
          tags: ['config'],
          security: MAIN_SECURITY,
          response: {
            200: {
              description: 'Effective configuration',
              type: 'object',
              required: ['config', 'api_version', 'timestamp'],
              properties: { config: { type: 'object', additionalProperties: true }, ...envelopeProperties },
            },
            401: errorResponse('Missing or invalid token'),
          },
        },
      },
      async () => envelope({ config }),
    );
  };
}
