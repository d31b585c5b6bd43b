// POST /v1/check (docs/http-api-contract.md §4.2): staleness of every selected container, nothing pulled, nothing applied,
// no lock taken. Per-container failures are records with `error`, never a failed request (docs/http-api-contract.md §7.4).
import type { FastifyPluginAsync } from 'fastify';
import { formatGoDuration } from '../../../core/index.js';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from '../context.js';
import { checkRecord, checkRecordSchema, withHold } from '../check-record.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import type { KnownState } from '../last-checks.js';
import { filterQuerySchema, parseTimeout, runFilters, timeoutQuerySchema, type Query } from '../query.js';
import { compileContainerPatterns } from '../pattern-filters.js';
import { RunDeadline } from '../run-deadline.js';

/**
 * `known` keeps each container's answer for the container lists (a state store records it itself) and says
 * which containers are held after a rollback (docs/state.md#holds).
 */
export function checkRoutes(ctx: RouteContext, known?: KnownState): FastifyPluginAsync {
  const { core, options } = ctx;
  const guard = requireMainGuard(ctx);
  const maximum = formatGoDuration(options.checkTimeoutMs);
  return async (app) => {
    app.post(
      '/v1/check',
      {
        onRequest: guard.hook,
        schema: {
          summary: 'Check for updates',
          description:
            'Checks the monitored containers for newer images (or Git commits) without pulling or applying anything.',
          tags: ['updates'],
          security: MAIN_SECURITY,
          querystring: {
            type: 'object',
            properties: { ...filterQuerySchema, timeout: timeoutQuerySchema(maximum) },
          },
          response: {
            200: {
              description: 'One record per checked container',
              type: 'object',
              required: ['containers', 'count', 'api_version', 'timestamp'],
              properties: {
                containers: { type: 'array', items: checkRecordSchema },
                count: { type: 'integer' },
                ...envelopeProperties,
              },
            },
            400: errorResponse('Bad query value'),
            401: errorResponse('Missing or invalid token'),
            413: errorResponse('Request body above 1 MiB'),
            500: errorResponse('Internal error'),
            503: errorResponse('Check timed out, or the client went away'),
          },
        },
      },
      async (request, reply) => {
        const query = request.query as Query;
        const filters = runFilters(query);
        const timeout = parseTimeout(query, options.checkTimeoutMs);
        await compileContainerPatterns(filters);
        const deadline = new RunDeadline('check', timeout, reply);
        const run = core.check({ filters, signal: deadline.signal, trigger: 'api' });
        // A run abandoned at the deadline still settles later; its outcome is the core's to log, and its
        // answers are as real as a timely run's.
        if (known?.recordsItself) run.then((report) => known.record(report.results)).catch(() => undefined);
        try {
          const report = await deadline.race(run);
          const containers = report.results.map((result) => withHold(checkRecord(result), result.target, known));
          return envelope({ containers, count: containers.length });
        } finally {
          deadline.dispose();
        }
      },
    );
  };
}
