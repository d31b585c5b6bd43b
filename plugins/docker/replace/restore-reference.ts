// The reference a container is recreated on when it must run one exact local image (a rollback on demand,
// an old container recreated after it removed itself): the name it ran that image under, never a bare
// image id, so that `docker ps`, `Config.Image`, /v1/containers and the next check all name the same
// version (docs/state.md#rollback-on-demand). The image id stays the truth of what runs: a tag that has
// moved on since (a digest update moved `app:latest`) is put back on that image first.
import { tryParseImageReference } from '../../../core/index.js';
import type { EngineClient } from '../engine/client.js';
import { isNotFound } from '../engine/errors.js';

/** A bare image id as the engine reports one (`sha256:<hex>`, or the 64 hex digits alone). */
export function isImageId(reference: string): boolean {
  return /^(sha256:)?[0-9a-f]{64}$/.test(reference);
}

async function imageIdOf(docker: EngineClient, reference: string): Promise<string | undefined> {
  try {
    return (await docker.getImage(reference).inspect()).Id;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** `repo` and `tag` of `repo:tag` as written (a registry port's colon is not a tag's). */
function splitTag(reference: string): { repo: string; tag: string } | undefined {
  const colon = reference.lastIndexOf(':');
  if (colon <= reference.lastIndexOf('/')) return undefined;
  return { repo: reference.slice(0, colon), tag: reference.slice(colon + 1) };
}

/**
 * The reference to create a container on so that it runs `imageId` under `reference`: `reference` itself
 * when it names that image (after tagging the image with it when a tag moved on), else the image id when
 * the reference cannot name it (an id, a digest of another image). The caller labels an id-created
 * container with its name (Watchtower's zodiac label), the one case that label is read.
 */
export async function restoreReference(docker: EngineClient, imageId: string, reference: string | undefined): Promise<string> {
  if (!reference || isImageId(reference)) return imageId;
  const parsed = tryParseImageReference(reference);
  if (!parsed) return imageId;
  const current = await imageIdOf(docker, reference);
  if (current === imageId) return reference;
  // A digest names one image for good; only a tag can be put back.
  if (parsed.digest !== undefined) return imageId;
  await docker.getImage(imageId).tag(splitTag(reference) ?? { repo: reference, tag: 'latest' });
  return reference;
}
