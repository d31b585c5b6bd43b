// GET /v1/history (docs/http-api.md#get-v1history): run summaries in pages (paging.ts), the newest page
// first and oldest first within a page, from the state store (the last 10,000) or, without one, the core's
// last 500. `since` and `until` (RFC 3339, inclusive) bound a run's start, before paging. A bad value is
// 400 rather than ignored: a monitoring script that typed a date wrong should hear about it.
import type { FastifyPluginAsync } from 'fastify';
import { MAIN_SECURITY, type RouteContext, requireAccess } from '../context.js';
import type { Actor, HistoryEntry } from '../../../core/index.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { httpErrors } from '../errors.js';
import { querySingle, type Query } from '../query.js';
import { summarySchema } from './update.js';
import { STATE_STORE } from '../../../contracts/index.js';
import { nextProperty, pageOfList, pageQueryProperties, parsePage } from './paging.js';
import { actorSchema } from './audit.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

export function parseTime(query: Query, name: string): number | undefined {
  const value = querySingle(query, name);
  if (value === undefined) return undefined;
  if (value === '') throw httpErrors.badQuery(name, 'empty value');
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw httpErrors.badQuery(name, `expected an RFC 3339 time such as 2025-01-20T11:30:45Z, got ${JSON.stringify(value)}`);
  return ms;
}

/** `since` and `until` of a time-bounded list (history, audit); a range that ends before it starts is 400. */
export function parseTimes(query: Query): { since?: number; until?: number } {
  const since = parseTime(query, 'since');
  const until = parseTime(query, 'until');
  if (since !== undefined && until !== undefined && since > until) throw httpErrors.badRange();
  return { since, until };
}

export interface HistoryView {
  run_id: string;
  kind: string;
  targeted: boolean;
  trigger: string;
  actor?: Actor;
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
  if (entry.actor !== undefined) out.actor = entry.actor;
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
    actor: actorSchema,
    started_at: { type: 'string', format: 'date-time' },
    finished_at: { type: 'string', format: 'date-time' },
    summary: summarySchema,
    error: { type: 'string', description: 'Why the run as a whole failed or was cancelled (present only then)' },
  },
} as const;

export function historyRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireAccess(ctx);
  return async (app) => {
    app.get(
      '/v1/history',
      {
        onRequest: guard.hook,
        config: { role: 'viewer' },
        schema: {
          summary: 'Run history',
          description:
            'Update and check runs (the last 10,000 with a data directory), in pages: the newest page first, oldest first within a page; `next` is the cursor of the older page.',
          tags: ['history'],
          security: MAIN_SECURITY,
          querystring: {
            type: 'object',
            properties: {
              since: { type: 'string', description: 'Runs started at or after (RFC 3339)' },
              until: { type: 'string', description: 'Runs started at or before (RFC 3339)' },
              ...pageQueryProperties,
            },
          },
          response: {
            200: {
              description: 'A page of run summaries, oldest first',
              type: 'object',
              required: ['entries', 'count', 'api_version', 'timestamp'],
              properties: { entries: { type: 'array', items: entrySchema }, count: { type: 'integer' }, ...nextProperty, ...envelopeProperties },
            },
            400: errorResponse('Bad since, until, limit or cursor'),
            401: errorResponse('Missing or invalid token'),
          },
        },
      },
      async (request) => {
        const query = request.query as Query;
        const { since, until } = parseTimes(query);
        const page = parsePage(query);
        const store = core.services.get(STATE_STORE);
        const { entries, next } = store
          ? await store.historyPage({ ...page, ...(since === undefined ? {} : { since }), ...(until === undefined ? {} : { until }) })
          : pageOfList(
              core.history.entries().filter((e) => {
                const at = e.startedAt.getTime();
                return (since === undefined || at >= since) && (until === undefined || at <= until);
              }),
              page,
            );
        const views = entries.map(view);
        return envelope({ entries: views, count: views.length, ...(next === undefined ? {} : { next }) });
      },
    );
  };
}
