// POST /v1/plan (docs/http-api.md#plans, docs/plans.md): what an update run with these filters would do now,
// decided by every stage and gate and kept for --plan-ttl; nothing applied, no lock taken. Enabled with the
// update endpoint: a plan is applied through POST /v1/update?plan=ID.
import type { FastifyPluginAsync } from 'fastify';
import { formatGoDuration } from '../../../core/index.js';
import { MAIN_SECURITY, requireAccess, type RouteContext } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { planJson, planSchema } from '../plan-json.js';
import { filterQuerySchema, parseTimeout, runFilters, timeoutQuerySchema, type Query } from '../query.js';
import { compileContainerPatterns } from '../pattern-filters.js';
import { RunDeadline } from '../run-deadline.js';

export function planRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core, options } = ctx;
  const guard = requireAccess(ctx);
  const maximum = formatGoDuration(options.updateTimeoutMs);
  return async (app) => {
    app.post(
      '/v1/plan',
      {
        onRequest: guard.hook,
        config: { role: 'operator' },
        schema: {
          summary: 'Plan an update',
          description:
            'Decides what an update run with these filters would do now (every gate, dependency order) and applies nothing; ' +
            'apply exactly that plan with POST /v1/update?plan=ID before it expires.',
          tags: ['updates'],
          security: MAIN_SECURITY,
          querystring: { type: 'object', properties: { ...filterQuerySchema, timeout: timeoutQuerySchema(maximum) } },
          response: {
            201: { description: 'The plan', ...planSchema, properties: { ...planSchema.properties, ...envelopeProperties } },
            400: errorResponse('Bad query value'),
            401: errorResponse('Missing or invalid token'),
            413: errorResponse('Request body above 1 MiB'),
            500: errorResponse('Internal error'),
            503: errorResponse('Timed out, or the client went away'),
          },
        },
      },
      async (request, reply) => {
        const query = request.query as Query;
        const filters = runFilters(query);
        const timeout = parseTimeout(query, options.updateTimeoutMs);
        await compileContainerPatterns(filters);
        const deadline = new RunDeadline('plan', timeout, reply);
        const deciding = core.plan({ filters, signal: deadline.signal, trigger: 'api' });
        try {
          const plan = await deadline.race(deciding);
          return reply.code(201).send(envelope(planJson(plan)));
        } finally {
          deciding.catch(() => undefined);
          deadline.dispose();
        }
      },
    );
  };
}
