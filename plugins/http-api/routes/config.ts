// GET /v1/config (docs/interface.md §4): every loaded plugin's effective options, as the core records
// them; what is secret is decided by each option's declaration.
import type { FastifyPluginAsync } from 'fastify';
import { optionsView } from '../../../core/index.js';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';

export function configRoutes(ctx: RouteContext): FastifyPluginAsync {
  const guard = requireMainGuard(ctx);
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
      async () => envelope({ config: optionsView(ctx.core.options) }),
    );
  };
}
