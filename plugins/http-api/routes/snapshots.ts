// GET /v1/snapshots (docs/http-api.md#get-v1snapshots, docs/snapshots.md): the volume snapshots Tidewatch keeps,
// in pages (paging.ts) as /v1/audit: the newest page first, newest last within a page. `container` (exact) and
// `host` filter before paging; a bad value is 400. Viewer role: it shows names and sizes, never file content.
import type { FastifyPluginAsync } from 'fastify';
import { SNAPSHOTS, type SnapshotRecord } from '../../../contracts/index.js';
import { MAIN_SECURITY, type RouteContext, requireAccess } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { httpErrors } from '../errors.js';
import { querySingle, type Query } from '../query.js';
import { nextProperty, pageQueryProperties, parsePage } from './paging.js';

/** A snapshot an audit entry or an update's result names (docs/snapshots.md). */
export const snapshotRefSchema = {
  type: 'object',
  required: ['id', 'volumes'],
  description: 'The volume snapshot the change took, or restored (restored: true)',
  properties: { id: { type: 'string' }, volumes: { type: 'array', items: { type: 'string' } }, restored: { type: 'boolean' } },
} as const;

const snapshotSchema = {
  type: 'object',
  required: ['id', 'container', 'created_at', 'volumes', 'run_id'],
  properties: {
    id: { type: 'string' },
    container: { type: 'string' },
    host: { type: 'string', description: 'The engine, as configured' },
    created_at: { type: 'string', format: 'date-time' },
    volumes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'bytes', 'sha256'],
        properties: {
          name: { type: 'string' },
          destination: { type: 'string', description: 'Where the container mounts it' },
          bytes: { type: 'integer', description: "The sum of the volume's regular files' sizes" },
          sha256: { type: 'string', description: "The snapshot file's SHA-256" },
        },
      },
    },
    run_id: { type: 'string', description: 'The update run that took it' },
  },
} as const;

export function snapshotRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireAccess(ctx);
  return async (app) => {
    app.get(
      '/v1/snapshots',
      {
        onRequest: guard.hook,
        config: { role: 'viewer' },
        schema: {
          summary: 'Volume snapshots',
          description:
            'The volume snapshots kept (docs/snapshots.md), in pages: the newest page first, newest last within a page; `next` is the cursor of the older page.',
          tags: ['history'],
          security: MAIN_SECURITY,
          querystring: {
            type: 'object',
            properties: {
              container: { type: 'string', description: 'Exact container name' },
              host: { type: 'string', description: 'The engine, as configured with --host' },
              ...pageQueryProperties,
            },
          },
          response: {
            200: {
              description: 'A page of snapshots, newest last',
              type: 'object',
              required: ['snapshots', 'count', 'api_version', 'timestamp'],
              properties: { snapshots: { type: 'array', items: snapshotSchema }, count: { type: 'integer' }, ...nextProperty, ...envelopeProperties },
            },
            400: errorResponse('Bad container, host, limit or cursor'),
            401: errorResponse('Missing or invalid token'),
          },
        },
      },
      async (request) => {
        const query = request.query as Query;
        const container = querySingle(query, 'container');
        if (container === '') throw httpErrors.badQuery('container', 'empty value');
        const host = querySingle(query, 'host');
        if (host === '') throw httpErrors.badQuery('host', 'empty value');
        const page = parsePage(query);
        const snapshots = core.services.get(SNAPSHOTS);
        const { entries, next }: { entries: SnapshotRecord[]; next?: string } = snapshots
          ? snapshots.page({ ...page, ...(container === undefined ? {} : { container }), ...(host === undefined ? {} : { host }) })
          : { entries: [] };
        return envelope({ snapshots: entries, count: entries.length, ...(next === undefined ? {} : { next }) });
      },
    );
  };
}
