// --cleanup: after the run, remove the images replaced containers ran, unless any container (in any
// state: a stopped one would lose its image) still uses them.
import type { EngineClient } from './engine-client.js';
import { errorMessage, type Logger } from '../../core/index.js';
import { isConflict, isNotFound } from './engine-errors.js';
import type { ReplacedImage } from './run-state.js';

export interface CleanedImage {
  readonly image_id: string;
  readonly image_name: string;
}

/** Removes the unused ones; returns one entry per replaced container whose image was removed. */
export async function removeReplacedImages(
  docker: EngineClient,
  replaced: readonly ReplacedImage[],
  logger: Logger,
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
      await docker.getImage(imageId).remove({ force: true, noprune: false });
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
