// GET /v1/audit (docs/http-api.md#get-v1audit, docs/state.md#the-audit-trail): every replacement, rollback,
// dependent restart and start-up repair, oldest first (newest last). `container` filters exactly, `since`
// and `until` (RFC 3339, inclusive) bound the entry's time, `limit` keeps the newest N; a bad value is 400.
import type { FastifyPluginAsync } from 'fastify';
import { STATE_STORE, type AuditEntry } from '../../../core/index.js';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { httpErrors } from '../errors.js';
import { querySingle, type Query } from '../query.js';
import { parseWindow } from './history.js';

export const imageSchema = {
  type: 'object',
  required: ['image', 'digest', 'image_id'],
  properties: {
    image: { type: 'string', description: 'Image reference' },
    digest: { type: 'string', description: 'Registry digest, empty when unknown' },
    image_id: { type: 'string', description: 'Local image id' },
    version: { type: 'string', description: "The image's org.opencontainers.image.version, when known" },
  },
} as const;

export const auditEntrySchema = {
  type: 'object',
  required: ['id', 'time', 'action', 'container', 'trigger', 'run_id', 'outcome'],
  properties: {
    id: { type: 'string' },
    time: { type: 'string', format: 'date-time' },
    action: { type: 'string', enum: ['update', 'rollback', 'restart', 'repair'] },
    container: { type: 'string' },
    host: { type: 'string', description: 'The engine, as configured' },
    trigger: { type: 'string', description: 'Who started the run: schedule, api, startup, mqtt, webhook:<receiver>, embed…' },
    run_id: { type: 'string', description: 'The run; empty for a start-up repair' },
    from: imageSchema,
    to: imageSchema,
    outcome: { type: 'string', description: 'updated, rolled_back, restarted, restored, removed, failed…' },
    error: { type: 'string', description: 'Why it failed (present only then)' },
    note: { type: 'string', description: 'A sentence about the result, e.g. what became of the Compose file (present only then)' },
  },
} as const;

export function auditRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireMainGuard(ctx);
  return async (app) => {
    app.get(
      '/v1/audit',
      {
        onRequest: guard.hook,
        schema: {
          summary: 'Audit trail',
          description: 'Every replacement, rollback, dependent restart and start-up repair, newest last (the last 10,000).',
          tags: ['history'],
          security: MAIN_SECURITY,
          querystring: {
            type: 'object',
            properties: {
              container: { type: 'string', description: 'Exact container name' },
              since: { type: 'string', description: 'Entries at or after (RFC 3339)' },
              until: { type: 'string', description: 'Entries at or before (RFC 3339)' },
              limit: { type: 'string', description: 'Keep the newest N (N >= 0)' },
            },
          },
          response: {
            200: {
              description: 'Audit entries, newest last',
              type: 'object',
              required: ['entries', 'count', 'api_version', 'timestamp'],
              properties: { entries: { type: 'array', items: auditEntrySchema }, count: { type: 'integer' }, ...envelopeProperties },
            },
            400: errorResponse('Bad container, since, until or limit'),
            401: errorResponse('Missing or invalid token'),
          },
        },
      },
      async (request) => {
        const query = request.query as Query;
        const container = querySingle(query, 'container');
        if (container === '') throw httpErrors.badQuery('container', 'empty value');
        const { since, until, limit } = parseWindow(query);
        const store = core.services.get(STATE_STORE);
        const entries: AuditEntry[] = store
          ? await store.audit({
              ...(container === undefined ? {} : { container }),
              ...(since === undefined ? {} : { since }),
              ...(until === undefined ? {} : { until }),
              ...(limit === undefined ? {} : { limit }),
            })
          : [];
        return envelope({ entries, count: entries.length });
      },
    );
  };
}
