// GET /v1/status (docs/http-api.md#get-v1status): the summary of the last update run, the Watchtower fork's
// endpoint, enabled with `metrics`. 204 before any update run; checks are not update runs and never count.
// `timestamp` is the answer's time, as everywhere (the fork's docs call it the scan's time, its code does not);
// `finished_at` and `run_id` say which run the summary is from.
import type { FastifyPluginAsync } from 'fastify';
import type { HistoryEntry } from '../../../core/index.js';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { summarySchema } from './update.js';

export interface StatusView {
  summary: HistoryEntry['summary'];
  run_id: string;
  finished_at: string;
  error?: string;
}

export function statusView(entries: readonly HistoryEntry[]): StatusView | undefined {
  const last = entries.findLast((e) => e.kind === 'update');
  if (!last) return undefined;
  const view: StatusView = { summary: last.summary, run_id: last.runId, finished_at: last.finishedAt.toISOString() };
  if (last.error !== undefined) view.error = last.error;
  return view;
}

export function statusRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireMainGuard(ctx);
  return async (app) => {
    app.get(
      '/v1/status',
      {
        onRequest: guard.hook,
        schema: {
          summary: 'Last update run',
          description: 'The summary of the last update run (scheduled or through the API); 204 before the first one.',
          tags: ['metrics'],
          security: MAIN_SECURITY,
          response: {
            200: {
              description: 'Summary of the last update run',
              type: 'object',
              required: ['summary', 'run_id', 'finished_at', 'api_version', 'timestamp'],
              properties: {
                summary: summarySchema,
                run_id: { type: 'string', description: 'The run the summary is from' },
                finished_at: { type: 'string', format: 'date-time', description: 'When that run finished' },
                error: { type: 'string', description: 'Why that run failed as a whole (present only then; the counts are 0)' },
                ...envelopeProperties,
              },
            },
            204: { description: 'No update run yet', type: 'null' },
            401: errorResponse('Missing or invalid token'),
          },
        },
      },
      async (_request, reply) => {
        const status = statusView(core.history.entries());
        if (!status) return reply.code(204).send();
        return envelope(status);
      },
    );
  };
}
