// GET /v1/metrics (docs/interface.md §4): Prometheus text exposition, main token.
import type { FastifyPluginAsync } from 'fastify';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from '../context.js';
import { errorResponse } from '../envelope.js';
import type { ApiMetrics } from '../metrics.js';

export function metricsRoutes(ctx: RouteContext, metrics: ApiMetrics): FastifyPluginAsync {
  const guard = requireMainGuard(ctx);
  return async (app) => {
    app.get(
      '/v1/metrics',
      {
        onRequest: guard.hook,
        schema: {
          summary: 'Prometheus metrics',
          description:
            'tidewatch_scans_total, tidewatch_containers_* (last update run), tidewatch_container_updates_total, ' +
            'tidewatch_scan_duration_seconds, tidewatch_registry_requests_total, tidewatch_notifications_total and the Node.js process defaults; ' +
            "beside them Watchtower's series: watchtower_containers_{scanned,updated,failed,restarted}, watchtower_scans_total, watchtower_scans_skipped.",
          tags: ['metrics'],
          security: MAIN_SECURITY,
          produces: ['text/plain'],
          response: {
            200: { description: 'Prometheus text exposition format', type: 'string' },
            401: errorResponse('Missing or invalid token'),
          },
        },
      },
      async (_request, reply) => {
        const text = await metrics.registry.metrics();
        return reply.type(metrics.registry.contentType).send(text);
      },
    );
  };
}
