// GET /v1/images (docs/http-api.md#get-v1images): the images the monitored containers run, one entry per image
// id and image name, with how many of those containers use it. The Watchtower fork's endpoint, enabled with
// `images`; unlike the fork, no match is `[]` and the order is stable (by name, then id).
import type { FastifyPluginAsync } from 'fastify';
import { formatImageReference, tryParseImageReference, type Target } from '../../../core/index.js';
import { currentDigest } from '../check-record.js';
import { requireMainGuard, MAIN_SECURITY, type RouteContext } from '../context.js';
import { envelope, envelopeProperties, errorResponse } from '../envelope.js';
import { queryValues, type Query } from '../query.js';

export interface ImageView {
  name: string;
  image_id: string;
  digest: string;
  containers: number;
}

const imageSchema = {
  type: 'object',
  required: ['name', 'image_id', 'digest', 'containers'],
  properties: {
    name: { type: 'string', description: 'Image reference as the containers name it' },
    image_id: { type: 'string', description: 'Local image ID' },
    digest: { type: 'string', description: 'Registry digest of the image, empty for local builds' },
    containers: { type: 'integer', minimum: 1, description: 'Monitored containers running this image' },
  },
} as const;

/** `nginx`, `nginx:latest` and `docker.io/library/nginx:latest` name one image; an unparsable name stands for itself. */
function normalisedName(image: string): string {
  const ref = tryParseImageReference(image);
  return ref ? formatImageReference(ref) : image;
}

interface Group {
  readonly first: Target;
  readonly rawNames: Set<string>;
  count: number;
}

/**
 * Groups targets by (image id, normalised name). The entry is named the way its first container (by
 * name) writes it, so a client sees a name it used; `name=` filters match any container's spelling.
 */
export function imageViews(targets: readonly Target[], names: readonly string[], ids: readonly string[]): ImageView[] {
  const groups = new Map<string, Group>();
  const byName = [...targets].sort((a, b) => a.name.localeCompare(b.name));
  for (const target of byName) {
    const key = `${target.imageId}\n${normalisedName(target.image)}`;
    const group = groups.get(key) ?? { first: target, rawNames: new Set<string>(), count: 0 };
    group.rawNames.add(target.image);
    group.count += 1;
    groups.set(key, group);
  }
  return [...groups.values()]
    .filter((g) => (names.length === 0 || names.some((n) => g.rawNames.has(n))) && (ids.length === 0 || ids.includes(g.first.imageId)))
    .map((g) => ({ name: g.first.image, image_id: g.first.imageId, digest: currentDigest(g.first), containers: g.count }))
    .sort((a, b) => a.name.localeCompare(b.name) || a.image_id.localeCompare(b.image_id));
}

export function imageRoutes(ctx: RouteContext): FastifyPluginAsync {
  const { core } = ctx;
  const guard = requireMainGuard(ctx);
  return async (app) => {
    app.get(
      '/v1/images',
      {
        onRequest: guard.hook,
        schema: {
          summary: 'Images of the monitored containers',
          description: 'One entry per image id and image name the monitored containers run, with how many run it.',
          tags: ['images'],
          security: MAIN_SECURITY,
          querystring: {
            type: 'object',
            properties: {
              name: { type: 'array', items: { type: 'string' }, description: 'Exact image reference as a container names it (repeatable)' },
              id: { type: 'array', items: { type: 'string' }, description: 'Exact local image ID, sha256:… (repeatable)' },
            },
          },
          response: {
            200: {
              description: 'Images in use, by name then id',
              type: 'object',
              required: ['images', 'count', 'api_version', 'timestamp'],
              properties: { images: { type: 'array', items: imageSchema }, count: { type: 'integer' }, ...envelopeProperties },
            },
            401: errorResponse('Missing or invalid token'),
            500: errorResponse('Internal error'),
          },
        },
      },
      async (request) => {
        const query = request.query as Query;
        const targets = await core.targets({ trigger: 'api' });
        const images = imageViews(targets, queryValues(query, 'name'), queryValues(query, 'id'));
        return envelope({ images, count: images.length });
      },
    );
  };
}
