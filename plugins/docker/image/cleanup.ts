// --cleanup: after the run, remove the images replaced containers ran, unless any container (in any
// state: a stopped one would lose its image) still uses them. On Podman a forced removal also removes
// every container of the image (docs/podman.md), so there nothing is forced: a container made between the
// list and the removal keeps its image, and an image with several tags loses them one by one.
import type { EngineClient } from '../engine/client.js';
import type { EngineProfile } from '../engine/profile.js';
import { errorMessage, type Logger } from '../../../core/index.js';
import { isConflict, isNotFound } from '../engine/errors.js';
import type { ReplacedImage } from '../replace/run-state.js';

export interface CleanedImage {
  readonly image_id: string;
  readonly image_name: string;
}

/** Podman: each tag unforced (the last one takes the image), then the id if it is still there. */
async function removeUnforced(docker: EngineClient, imageId: string): Promise<void> {
  const { RepoTags: tags } = await docker.getImage(imageId).inspect();
  for (const tag of tags ?? []) await docker.getImage(tag).remove({ force: false, noprune: false });
  try {
    await docker.getImage(imageId).remove({ force: false, noprune: false });
  } catch (err) {
    // The last tag took it.
    if (!isNotFound(err) || (tags ?? []).length === 0) throw err;
  }
}

/** Removes the unused ones; returns one entry per replaced container whose image was removed. */
export async function removeReplacedImages(
  docker: EngineClient,
  replaced: readonly ReplacedImage[],
  logger: Logger,
  profile: Pick<EngineProfile, 'forcedImageRemovalRemovesContainers'>,
): Promise<CleanedImage[]> {
  if (replaced.length === 0) return [];
  const inUse = new Set((await docker.listContainers({ all: true })).map((c) => c.ImageID));
  const removed = new Set<string>();
  for (const imageId of new Set(replaced.map((r) => r.imageId))) {
    if (inUse.has(imageId)) {
      logger.debug({ image_id: imageId }, 'image still in use, kept');
      continue;
    }
    try {
      if (profile.forcedImageRemovalRemovesContainers) await removeUnforced(docker, imageId);
      else await docker.getImage(imageId).remove({ force: true, noprune: false });
      removed.add(imageId);
    } catch (err) {
      if (isNotFound(err)) continue;
      if (isConflict(err)) logger.info({ image_id: imageId }, 'image in use, kept');
      else logger.warn({ image_id: imageId, err: errorMessage(err) }, 'could not remove image');
    }
  }
  return replaced
    .filter((r) => removed.has(r.imageId))
    .map((r) => ({ image_id: r.imageId, image_name: r.imageName }));
}
