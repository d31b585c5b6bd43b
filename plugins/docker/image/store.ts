// Which image store an engine keeps its images in, and what that means for the digest a running image is known
// by (docs/engines.md#the-containerd-image-store). This is the one place the docker runtime decides anything by
// store (through the engine profile's `keepsImageIdAsManifestDigest`, engine/profile.ts); the registry source only compares the digests a target carries.
//
// The classic store (graph drivers: overlay2, vfs, …) records, per repository, the registry digest an image was
// pulled by (`RepoDigests`, kept even after its tag moved on); the image ID is the config's digest. The containerd
// store (a fresh Docker 29's default) makes the image ID the digest of what was pulled, the manifest or the
// multi-platform index, and lists `RepoDigests` only for the names the image still has: an image whose tag moved
// (a local pull or build, a rolled-back update) has none. There the image ID is still the digest to compare.
import { repositoryName, tryParseImageReference } from '../../../core/index.js';

/** `unknown`: the engine's `/info` could not be read (a socket proxy without INFO=1, docs/security.md). */
export type ImageStore = 'containerd' | 'classic' | 'unknown';

/** The part of `GET /info` that says the store: the containerd store reports its snapshotter as the driver. */
export interface EngineInfo {
  readonly DriverStatus?: readonly (readonly string[])[] | null;
}

const CONTAINERD_SNAPSHOTTER = 'io.containerd.snapshotter.v1';

export function imageStoreOf(info: EngineInfo): ImageStore {
  const containerd = (info.DriverStatus ?? []).some(([key, value]) => key === 'driver-type' && value === CONTAINERD_SNAPSHOTTER);
  return containerd ? 'containerd' : 'classic';
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/**
 * The `repo@digest` entries a container's running image is known by. Where the containerd store (the profile's
 * `keepsImageIdAsManifestDigest`: `imageIdIsPulledDigest`) lists none for
 * the container's own repository, its image ID (the pulled manifest's or index's digest) stands for it; the
 * classic store's image ID is a config digest, which no registry serves, so nothing is added there: the registry
 * source then reports that the current digest cannot be known, never "up to date".
 */
export function knownDigests(imageIdIsPulledDigest: boolean, imageName: string, imageId: string, repoDigests: readonly string[]): readonly string[] {
  if (!imageIdIsPulledDigest || !DIGEST.test(imageId)) return repoDigests;
  const ref = tryParseImageReference(imageName);
  if (!ref) return repoDigests;
  const repository = repositoryName(ref);
  const own = repoDigests.some((entry) => {
    const at = entry.lastIndexOf('@');
    const parsed = at === -1 ? undefined : tryParseImageReference(entry.slice(0, at));
    return parsed !== undefined && repositoryName(parsed) === repository;
  });
  return own ? repoDigests : [...repoDigests, `${repository}@${imageId}`];
}
