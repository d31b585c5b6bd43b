// GET /v1/history (docs/interface.md §4): the core's last run summaries, oldest first. `since` and
// `until` (RFC 3339, inclusive) bound a run's start; `limit` keeps the most recent N. A bad value is
// 400 rather than ignored: a monitoring script that typed a date wrong should hear about it.
import type { FastifyPluginAsync } from 'fastify';
import type { HistoryEntry } from '../../../core/index.js';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { httpErrors } from '../errors.js';
import { querySingle, type Query } from '../query.js';
import { summarySchema } from './update.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export function parseTime(query: Query, name: string): number | undefined {
  const value = querySingle(query, name);
  if (value === undefined) return undefined;
  if (value === '') throw httpErrors.badQuery(name, 'empty value');
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw httpErrors.badQuery(name, `expected an RFC 3339 time such as 2025-01-20T11:30:45Z, got ${JSON.stringify(value)}`);
  return ms;
}

export function parseLimit(query: Query): number | undefined {
  const value = querySingle(query, 'limit');
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw httpErrors.badQuery('limit', `expected a non-negative integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** `since`, `until` and `limit` of a time-bounded list (history, audit); a range that ends before it starts is 400. */
export function parseWindow(query: Query): { since?: number; until?: number; limit?: number } {
  const since = parseTime(query, 'since');
  const until = parseTime(query, 'until');
  const limit = parseLimit(query);
  if (since !== undefined && until !== undefined && since > until) throw httpErrors.badRange();
  return { since, until, limit };
}

export interface HistoryView {
  run_id: string;
  kind: string;
  targeted: boolean;
  trigger: string;
  started_at: string;
  finished_at: string;
  summary: HistoryEntry['summary'];
  error?: string;
}

function view(entry: HistoryEntry): HistoryView {
  const out: HistoryView = {
    run_id: entry.runId,
    kind: entry.kind,
    targeted: entry.targeted,
    trigger: entry.trigger,
    started_at: entry.startedAt.toISOString(),
    finished_at: entry.finishedAt.toISOString(),
    summary: entry.summary,
  };
  if (entry.error !== undefined) out.error = entry.error;
  return out;
}

const entrySchema = {
  type: 'object',
  required: ['run_id', 'kind', 'targeted', 'started_at', 'finished_at', 'summary'],
  properties: {
    run_id: { type: 'string' },
    kind: { type: 'string', enum: ['update', 'check'] },
    targeted: { type: 'boolean' },
    trigger: { type: 'string', description: 'who started the run: schedule, api, startup, mqtt, webhook:<receiver>, embed…' },
    started_at: { type: 'string', format: 'date-time' },
    finished_at: { type: 'string', format: 'date-time' },
    summary: summarySchema,
    error: { type: 'string', description: 'Why the run as a whole failed or was cancelled (present only then)' },
  },
} as const;

export function historyRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireMainGuard(ctx);
  return async (app) => {
    app.get(
      '/v1/history',
      {
        onRequest: guard.hook,
        schema: {
          summary: 'Run history',
          description: 'The last 500 update and check runs, oldest first.',
          tags: ['history'],
          security: MAIN_SECURITY,
          querystring: {
            type: 'object',
            properties: {
              since: { type: 'string', description: 'Runs started at or after (RFC 3339)' },
              until: { type: 'string', description: 'Runs started at or before (RFC 3339)' },
              limit: { type: 'string', description: 'Keep the most recent N (N >= 0)' },
            },
          },
          response: {
            200: {
              description: 'Run summaries, oldest first',
              type: 'object',
              required: ['entries', 'count', 'api_version', 'timestamp'],
              properties: { entries: { type: 'array', items: entrySchema }, count: { type: 'integer' }, ...envelopeProperties },
            },
            400: errorResponse('Bad since, until or limit'),
            401: errorResponse('Missing or invalid token'),
          },
        },
      },
      async (request) => {
        const { since, until, limit } = parseWindow(request.query as Query);
        let entries = core.history.entries().filter((e) => {
          const at = e.startedAt.getTime();
          return (since === undefined || at >= since) && (until === undefined || at <= until);
        });
        if (limit !== undefined) entries = limit === 0 ? [] : entries.slice(-limit);
        const views = entries.map(view);
        return envelope({ entries: views, count: views.length });
      },
    );
  };
}
