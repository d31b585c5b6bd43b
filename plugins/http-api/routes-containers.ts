// GET /v1/containers (docs/interface.md §4): the selected targets, without any staleness check. Filters
// `name` and `image` are exact (unlike the run filters); no match is `[]`, never Watchtower's `null`.
import type { FastifyPluginAsync } from 'fastify';
import { parseBoolLabel, readLabel, type Target } from '../../core/index.js';
import { currentDigest, placement, placementProperties, type Placement } from './check-record.js';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from './context.js';
import { envelope, envelopeProperties, errorResponse } from './envelope.js';
import { queryValues, type Query } from './query.js';

const containerSchema = {
  type: 'object',
  required: ['name', 'id', 'image', 'image_id', 'digest', 'state', 'update_source', 'monitor_only', 'no_pull', 'scope'],
  properties: {
    name: { type: 'string' },
    ...placementProperties,
    id: { type: 'string' },
    image: { type: 'string' },
    image_id: { type: 'string' },
    digest: { type: 'string', description: 'Registry digest of the running image, empty for local builds' },
    state: { type: 'string', description: 'running, exited, created, restarting…' },
    update_source: { type: 'string', description: 'Watch path: registry, git, or a plugin\'s own' },
    monitor_only: { type: 'boolean', description: 'From the monitor-only label' },
    no_pull: { type: 'boolean', description: 'From the no-pull label' },
    scope: { type: 'string', description: 'The scope label, empty when unscoped' },
  },
} as const;

/** The `name` and `image` filters of the container lists: exact, repeatable (unlike the run filters). */
export const exactFilterQuerySchema = {
  type: 'object',
  properties: {
    name: { type: 'array', items: { type: 'string' }, description: 'Exact container name (repeatable)' },
    image: { type: 'array', items: { type: 'string' }, description: 'Exact image reference (repeatable)' },
  },
} as const;

export function exactFilter(targets: readonly Target[], query: Query): Target[] {
  const names = queryValues(query, 'name');
  const images = queryValues(query, 'image');
  return targets.filter((t) => (names.length === 0 || names.includes(t.name)) && (images.length === 0 || images.includes(t.image)));
}

export interface ContainerView extends Placement {
  name: string;
  id: string;
  image: string;
  image_id: string;
  digest: string;
  state: string;
  update_source: string;
  monitor_only: boolean;
  no_pull: boolean;
  scope: string;
}

/** `watchPath` is the core's: the target's watch path (docs/plugins.md#the-watch-split). */
export function containerView(target: Target, watchPath: (target: Target) => string): ContainerView {
  return {
    name: target.name,
    ...placement(target),
    id: target.id,
    image: target.image,
    image_id: target.imageId,
    digest: currentDigest(target),
    state: target.state,
    update_source: watchPath(target),
    monitor_only: parseBoolLabel(readLabel(target.labels, 'monitor-only')) ?? false,
    no_pull: parseBoolLabel(readLabel(target.labels, 'no-pull')) ?? false,
    scope: readLabel(target.labels, 'scope') ?? '',
  };
}

export function containerRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireMainGuard(ctx);
  return async (app) => {
    app.get(
      '/v1/containers',
      {
        onRequest: guard.hook,
        schema: {
          summary: 'List monitored containers',
          description: 'The containers a run would consider, without checking them.',
          tags: ['containers'],
          security: MAIN_SECURITY,
          querystring: exactFilterQuerySchema,
          response: {
            200: {
              description: 'Monitored containers',
              type: 'object',
              required: ['containers', 'count', 'api_version', 'timestamp'],
              properties: { containers: { type: 'array', items: containerSchema }, count: { type: 'integer' }, ...envelopeProperties },
            },
            401: errorResponse('Missing or invalid token'),
            500: errorResponse('Internal error'),
          },
        },
      },
      async (request) => {
        const targets = exactFilter(await core.targets({ trigger: 'api' }), request.query as Query);
        const containers = targets.map((target) => containerView(target, (t) => core.watchPath(t)));
        return envelope({ containers, count: containers.length });
      },
    );
  };
}
