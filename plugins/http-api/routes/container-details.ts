// GET /v1/containers/details (docs/http-api.md#get-v1containersdetails): the Watchtower fork's per-container flags,
// enabled with `containers`. Two departures from the fork, both on purpose: no match is `[]`, and `stale` is
// what the last /v1/check found for that container (the fork's is always false), with `checked_at` saying when.
import type { FastifyPluginAsync } from 'fastify';
import { parseBoolLabel, readLabel, type Target } from '../../../core/index.js';
import { UPDATE_POLICIES, type UpdatePolicies } from '../../../contracts/index.js';
import { currentDigest, placement, placementProperties, tagProperties, type FailedCandidateView, type Placement, type TagFields, findingsProperties } from '../check-record.js';
import { MAIN_SECURITY, type RouteContext, requireAccess } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import type { KnownState } from '../last-checks.js';
import type { Query } from '../query.js';
import { exactFilter, exactFilterQuerySchema, lastCheckProperties, withLastCheck } from './containers.js';

export interface ContainerDetailsView extends Placement, TagFields {
  name: string;
  image: string;
  image_id: string;
  digest: string;
  running: boolean;
  watchtower: boolean;
  monitor_only: boolean;
  no_pull: boolean;
  enabled: boolean;
  stale: boolean;
  scope: string;
  checked_at?: string;
  check_error?: string;
  update_available?: boolean;
  latest_digest?: string;
  held?: boolean;
  rollback_available?: boolean;
  next_window?: string;
  approval?: 'pending' | 'rejected' | 'deferred';
  failed_candidate?: FailedCandidateView;
  current_image_version?: string;
  latest_image_version?: string;
  changelog?: string;
  release_notes?: ReleaseNoteView[];
  /** Plugins' own findings of the last check, by key, each as its one line (docs/plugins.md#findings). */
  findings?: Record<string, string>;
}

/** One release between the running version and the latest (docs/versions.md#release-notes). */
export interface ReleaseNoteView {
  version: string;
  title: string;
  url: string;
  published_at?: string;
  body: string;
}

const releaseNotesProperties = {
  changelog: { type: 'string', description: 'Where the release notes of the update are (present only with an update, when known)' },
  release_notes: {
    type: 'array',
    maxItems: 10,
    description: 'The releases after the running version up to the latest, newest first (with --release-notes; docs/versions.md)',
    items: {
      type: 'object',
      required: ['version', 'title', 'url', 'body'],
      properties: {
        version: { type: 'string' },
        title: { type: 'string' },
        url: { type: 'string' },
        published_at: { type: 'string', format: 'date-time' },
        body: { type: 'string', description: 'Markdown as text, at most 4 KiB' },
      },
    },
  },
} as const;

const detailsSchema = {
  type: 'object',
  required: ['name', 'image', 'image_id', 'digest', 'running', 'watchtower', 'monitor_only', 'no_pull', 'enabled', 'stale', 'scope'],
  properties: {
    name: { type: 'string' },
    ...placementProperties,
    image: { type: 'string' },
    image_id: { type: 'string' },
    digest: { type: 'string', description: 'Registry digest of the running image, empty for local builds' },
    running: { type: 'boolean', description: 'The container is running' },
    watchtower: { type: 'boolean', description: "Tidewatch's own container (the self marker label)" },
    monitor_only: { type: 'boolean', description: 'From the monitor-only label' },
    no_pull: { type: 'boolean', description: 'From the no-pull label' },
    enabled: { type: 'boolean', description: 'Not opted out by the enable label (opted-out containers are not listed)' },
    stale: { type: 'boolean', description: 'The last /v1/check of this container found an update; false until one has' },
    scope: { type: 'string', description: 'The scope label, empty when unscoped' },
    ...lastCheckProperties,
    // The tag policy's fields of that last check (docs/tags.md#what-the-api-shows).
    ...tagProperties,
    ...releaseNotesProperties,
    ...findingsProperties,
  },
} as const;

export function detailsView(target: Target, lastChecks: KnownState, policies?: UpdatePolicies): ContainerDetailsView {
  const last = lastChecks.get(target.id);
  const view: ContainerDetailsView = {
    name: target.name,
    ...placement(target),
    image: target.image,
    image_id: target.imageId,
    digest: currentDigest(target),
    running: target.state === 'running',
    watchtower: target.isSelf,
    monitor_only: parseBoolLabel(readLabel(target.labels, 'monitor-only')) ?? false,
    no_pull: parseBoolLabel(readLabel(target.labels, 'no-pull')) ?? false,
    enabled: parseBoolLabel(readLabel(target.labels, 'enable')) !== false,
    stale: last?.stale ?? false,
    scope: readLabel(target.labels, 'scope') ?? '',
  };
  if (last?.tags) Object.assign(view, last.tags);
  if (last?.findings) view.findings = { ...last.findings };
  const notes = last?.stale ? last.releaseNotes : undefined;
  if (notes) {
    view.changelog = notes.url;
    view.release_notes = notes.entries.map((note) => ({
      version: note.version,
      title: note.title,
      url: note.url,
      ...(note.publishedAt ? { published_at: note.publishedAt } : {}),
      body: note.body,
    }));
  }
  return withLastCheck(view, target, lastChecks, policies);
}

export function containerDetailsRoutes(ctx: RouteContext, lastChecks: KnownState): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireAccess(ctx);
  return async (app) => {
    app.get(
      '/v1/containers/details',
      {
        onRequest: guard.hook,
        config: { role: 'viewer' },
        schema: {
          summary: 'Monitored containers with their flags',
          description:
            'The containers a run would consider, with their labels read as flags and `stale` from the last check ' +
            'of each, by any run (no new check is made).',
          tags: ['containers'],
          security: MAIN_SECURITY,
          querystring: exactFilterQuerySchema,
          response: {
            200: {
              description: 'Monitored containers with their flags',
              type: 'object',
              required: ['containers', 'count', 'api_version', 'timestamp'],
              properties: { containers: { type: 'array', items: detailsSchema }, count: { type: 'integer' }, ...envelopeProperties },
            },
            401: errorResponse('Missing or invalid token'),
            500: errorResponse('Internal error'),
          },
        },
      },
      async (request) => {
        const targets = exactFilter(await core.targets({ trigger: 'api' }), request.query as Query);
        const policies = core.services.get(UPDATE_POLICIES);
        const containers = targets.map((target) => detailsView(target, lastChecks, policies));
        return envelope({ containers, count: containers.length });
      },
    );
  };
}
