// --rollback-retention (docs/state.md#cleanup-and-retention): with --cleanup, the image an update replaced
// is kept for a while so that a rollback can still run it. The state store remembers each kept image and
// until when; every update run's cleanup removes those whose time is up (when no container uses them).
import type { RetainedImage, StateStore } from '../../../contracts/index.js';
import type { ReplacedImage } from '../replace/run-state.js';

/**
 * Records this run's replaced images of engine `host` as kept for `retentionMs`, and gives back the kept
 * images of that engine whose time is up: what cleanup removes now.
 */
export function retainImages(
  store: StateStore,
  replaced: readonly ReplacedImage[],
  host: string,
  retentionMs: number,
  now = Date.now(),
): ReplacedImage[] {
  const due: ReplacedImage[] = [];
  const kept = new Map<string, RetainedImage>();
  for (const image of store.retainedImages()) {
    if (image.host === host && Date.parse(image.until) <= now) due.push({ imageId: image.imageId, imageName: image.imageName });
    else kept.set(`${image.host}|${image.imageId}`, image);
  }
  const until = new Date(now + retentionMs).toISOString();
  for (const image of replaced) {
    kept.set(`${host}|${image.imageId}`, { imageId: image.imageId, imageName: image.imageName, host, until });
  }
  // An image kept again by this run (a rollback replaced the newer one by it) is not due.
  const fresh = due.filter((image) => !kept.has(`${host}|${image.imageId}`));
  if (fresh.length > 0 || replaced.length > 0) store.setRetainedImages([...kept.values()]);
  return fresh;
}
