// GET /v1/audit (docs/http-api.md#get-v1audit, docs/state.md#the-audit-trail): every replacement, rollback,
// dependent restart and start-up repair, in pages (paging.ts): the newest page first, newest last within a
// page. `container` filters exactly, `since` and `until` (RFC 3339, inclusive) bound the entry's time, before
// paging; a bad value is 400.
import type { FastifyPluginAsync } from 'fastify';
import { STATE_STORE, type AuditEntry } from '../../../contracts/index.js';
import { MAIN_SECURITY, type RouteContext, requireAccess } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { httpErrors } from '../errors.js';
import { querySingle, type Query } from '../query.js';
import { parseTimes } from './history.js';
import { nextProperty, pageQueryProperties, parsePage } from './paging.js';
import { snapshotRefSchema } from './snapshots.js';

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

/** Who made a change or a decision (docs/people.md#a-name-on-every-decision). */
export const actorSchema = {
  type: 'object',
  description: 'Who: a token by its name, a person signed in with SSO, mqtt, a webhook receiver, schedule or startup',
  properties: { kind: { type: 'string', enum: ['token', 'oidc', 'mqtt', 'webhook', 'schedule', 'startup'] }, name: { type: 'string' } },
} as const;

export const auditEntrySchema = {
  type: 'object',
  required: ['id', 'time', 'action', 'container', 'trigger', 'run_id', 'outcome'],
  properties: {
    id: { type: 'string' },
    time: { type: 'string', format: 'date-time' },
    action: { type: 'string', enum: ['update', 'rollback', 'restart', 'repair', 'approve', 'reject', 'defer', 'release'] },
    container: { type: 'string' },
    host: { type: 'string', description: 'The engine, as configured' },
    trigger: { type: 'string', description: 'Who started the run: schedule, api, startup, mqtt, webhook:<receiver>, embed…' },
    actor: actorSchema,
    run_id: { type: 'string', description: 'The run; empty for a start-up repair' },
    from: imageSchema,
    to: imageSchema,
    outcome: { type: 'string', description: 'updated, rolled_back, restarted, restored, removed, failed…' },
    error: { type: 'string', description: 'Why it failed (present only then)' },
    note: { type: 'string', description: 'A sentence about the result, e.g. what became of the Compose file (present only then)' },
    snapshot: snapshotRefSchema,
  },
} as const;

export function auditRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireAccess(ctx);
  return async (app) => {
    app.get(
      '/v1/audit',
      {
        onRequest: guard.hook,
        config: { role: 'viewer' },
        schema: {
          summary: 'Audit trail',
          description:
            'Every replacement, rollback, dependent restart and start-up repair (the last 100,000), in pages: the newest page first, newest last within a page; `next` is the cursor of the older page.',
          tags: ['history'],
          security: MAIN_SECURITY,
          querystring: {
            type: 'object',
            properties: {
              container: { type: 'string', description: 'Exact container name' },
              since: { type: 'string', description: 'Entries at or after (RFC 3339)' },
              until: { type: 'string', description: 'Entries at or before (RFC 3339)' },
              ...pageQueryProperties,
            },
          },
          response: {
            200: {
              description: 'A page of audit entries, newest last',
              type: 'object',
              required: ['entries', 'count', 'api_version', 'timestamp'],
              properties: { entries: { type: 'array', items: auditEntrySchema }, count: { type: 'integer' }, ...nextProperty, ...envelopeProperties },
            },
            400: errorResponse('Bad container, since, until, limit or cursor'),
            401: errorResponse('Missing or invalid token'),
          },
        },
      },
      async (request) => {
        const query = request.query as Query;
        const container = querySingle(query, 'container');
        if (container === '') throw httpErrors.badQuery('container', 'empty value');
        const { since, until } = parseTimes(query);
        const page = parsePage(query);
        const store = core.services.get(STATE_STORE);
        const { entries, next }: { entries: AuditEntry[]; next?: string } = store
          ? await store.auditPage({
              ...page,
              ...(container === undefined ? {} : { container }),
              ...(since === undefined ? {} : { since }),
              ...(until === undefined ? {} : { until }),
            })
          : { entries: [] };
        return envelope({ entries, count: entries.length, ...(next === undefined ? {} : { next }) });
      },
    );
  };
}
