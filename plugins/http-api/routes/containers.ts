// GET /v1/containers (docs/interface.md §4): the selected targets, without any staleness check. Filters
// `name` and `image` are exact (unlike the run filters); no match is `[]`, never Watchtower's `null`.
import type { FastifyPluginAsync } from 'fastify';
import { parseBoolLabel, readLabel, type Target } from '../../../core/index.js';
import { UPDATE_POLICIES, type UpdatePolicies } from '../../../contracts/index.js';
import { VERSION_LABEL, currentDigest, failedCandidateSchema, placement, placementProperties, withHold, type FailedCandidateView, type Placement } from '../check-record.js';
import type { KnownState } from '../last-checks.js';
import { MAIN_SECURITY, type RouteContext, requireAccess } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { queryValues, type Query } from '../query.js';

/** The last check's fields of both container lists (docs/state.md#last-checks), each present only once checked. */
export const lastCheckProperties = {
  update_available: { type: 'boolean', description: 'What the last check of this container found (present only once checked)' },
  latest_digest: { type: 'string', description: 'Newest registry digest the last check found, empty when unknown (present only once checked)' },
  checked_at: { type: 'string', format: 'date-time', description: 'When the last check ran, RFC 3339 (present only once checked)' },
  check_error: { type: 'string', description: 'Why the last check failed (at most 200 characters); present only when it did' },
  held: { type: 'boolean', description: 'Present (true) while the container is held after a rollback' },
  rollback_available: {
    type: 'boolean',
    description: 'Present (true) when this container (by its id, not its name) was updated by Tidewatch and its previous image is known: POST /v1/rollback can use it',
  },
  failed_candidate: failedCandidateSchema,
  next_window: {
    type: 'string',
    format: 'date-time',
    description: 'Present while an update is available and every update window of the container is closed: when the next opens (docs/policies.md)',
  },
  approval: {
    type: 'string',
    enum: ['pending', 'rejected', 'deferred'],
    description: 'Present when an approval of its update is pending, deferred, or was rejected (GET /v1/approvals)',
  },
  current_image_version: { type: 'string', description: 'org.opencontainers.image.version of the running image, when present' },
  latest_image_version: {
    type: 'string',
    description: 'The version the last check found an update to: the newer tag under a tag policy, else the candidate image\'s org.opencontainers.image.version (present only with an update)',
  },
} as const;

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
    ...lastCheckProperties,
  },
} as const;

/** The `name` and `image` filters of the container lists: exact, repeatable (unlike the run filters). */
export const exactFilterQuerySchema = {
  type: 'object',
  properties: {
    name: { type: 'array', items: { type: 'string' }, description: 'Exact container name (repeatable)' },
    image: { type: 'array', items: { type: 'string' }, description: 'Exact image reference (repeatable)' },
    host: { type: 'array', items: { type: 'string' }, description: 'Exact engine, as configured with --host (repeatable)' },
  },
} as const;

export function exactFilter(targets: readonly Target[], query: Query): Target[] {
  const names = queryValues(query, 'name');
  const images = queryValues(query, 'image');
  const hosts = queryValues(query, 'host');
  return targets.filter(
    (t) =>
      (names.length === 0 || names.includes(t.name)) &&
      (images.length === 0 || images.includes(t.image)) &&
      (hosts.length === 0 || (t.host !== undefined && hosts.includes(t.host))),
  );
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
  update_available?: boolean;
  latest_digest?: string;
  checked_at?: string;
  check_error?: string;
  held?: boolean;
  rollback_available?: boolean;
  next_window?: string;
  approval?: 'pending' | 'rejected' | 'deferred';
  failed_candidate?: FailedCandidateView;
  current_image_version?: string;
  latest_image_version?: string;
}

type LastCheckFields =
  | 'update_available' | 'latest_digest' | 'checked_at' | 'check_error' | 'held' | 'rollback_available' | 'failed_candidate'
  | 'next_window' | 'approval' | 'current_image_version' | 'latest_image_version';

/** Adds the last check, the versions (docs/versions.md), the hold, and what windows and approvals say (docs/policies.md) of `target` to a container view. */
export function withLastCheck<V extends Pick<ContainerView, LastCheckFields>>(
  view: V,
  target: Target,
  known: KnownState | undefined,
  policies?: UpdatePolicies,
): V {
  const last = known?.get(target.id);
  if (last) {
    view.update_available = last.stale;
    view.latest_digest = last.latestDigest;
    view.checked_at = last.checkedAt.toISOString();
    if (last.error !== undefined) view.check_error = last.error;
    if (last.stale && last.latestVersion) view.latest_image_version = last.latestVersion;
  }
  const current = target.imageLabels[VERSION_LABEL];
  if (current) view.current_image_version = current;
  if (known?.canRollBack(target.id)) view.rollback_available = true;
  if (policies) {
    const status = policies.statusOf(target, view.update_available === true);
    if (status.nextWindow) view.next_window = status.nextWindow.toISOString();
    if (status.approval) view.approval = status.approval;
  }
  return withHold(view, target, known);
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

export function containerRoutes(ctx: RouteContext, known?: KnownState): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireAccess(ctx);
  return async (app) => {
    app.get(
      '/v1/containers',
      {
        onRequest: guard.hook,
        config: { role: 'viewer' },
        schema: {
          summary: 'List monitored containers',
          description: 'The containers a run would consider, without checking them, with what the last check of each found (kept across restarts with --data-dir).',
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
            503: errorResponse('No container engine answers (TW_ERR_ENGINE_UNREACHABLE)'),
          },
        },
      },
      async (request) => {
        const targets = exactFilter(await core.targets({ trigger: 'api' }), request.query as Query);
        const policies = core.services.get(UPDATE_POLICIES);
        const containers = targets.map((target) => withLastCheck(containerView(target, (t) => core.watchPath(t)), target, known, policies));
        return envelope({ containers, count: containers.length });
      },
    );
  };
}
