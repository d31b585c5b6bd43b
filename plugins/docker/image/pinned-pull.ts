// What a replacement pulls and runs (docs/plugins.md#the-staleness-protocol): when the registry source
// resolved a digest, the engine pulls `repo@<that digest>`, never the tag, so the tag cannot move between
// the check (and any gate that verified the digest) and the pull. The engine must then have recorded that
// digest for the image, else the target fails before anything is stopped; the image is tagged
// `repo:<latestTag ?? current tag>` and the new container runs that name (kept pinned when the old
// reference pinned a digest). The runtime never parses versions: the tag comes from the staleness answer.
import { REGISTRY_PATH, TidewatchError, parseImageReference, repositoryName, tryParseImageReference, type Staleness } from '../../../core/index.js';
import type { EngineClient } from '../engine/client.js';

export interface PullTarget {
  /** What the engine pulls: `repo@sha256:new`, or the image name as today when no digest was resolved. */
  readonly pull: string;
  /** The reference the new container is created on. */
  readonly run: string;
  /** For a pull by digest: the digest the engine must record, and the tag to give the image. */
  readonly pinned?: { readonly digest: string; readonly repository: string; readonly tag: string | undefined };
}

/** `repo` of `repo:tag@digest` as written (the user's spelling, not the normalised name). */
function repositoryAsWritten(image: string): string {
  const at = image.indexOf('@');
  const name = at === -1 ? image : image.slice(0, at);
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(0, colon) : name;
}

/**
 * The pull and run references of a replacement of a container created on `imageName`. Only a stale
 * answer of the registry path with a resolved digest pulls by digest; anything else (no-pull, Git, a
 * third-party source, a restart) pulls and runs `imageName` exactly as before.
 */
export function pullTargetOf(imageName: string, staleness: Staleness): PullTarget {
  const { latestDigest } = staleness;
  if (staleness.source !== REGISTRY_PATH || !staleness.stale || !latestDigest) return { pull: imageName, run: imageName };
  let ref;
  try {
    ref = parseImageReference(imageName, { defaultTag: false });
  } catch {
    return { pull: imageName, run: imageName };
  }
  const repository = repositoryAsWritten(imageName);
  // A digest-only reference never gains a tag; otherwise the chosen tag, else the container's own.
  const tag = ref.tag === undefined ? undefined : (staleness.latestTag ?? ref.tag);
  const run = tag === undefined ? `${repository}@${latestDigest}` : ref.digest ? `${repository}:${tag}@${latestDigest}` : `${repository}:${tag}`;
  return { pull: `${repository}@${latestDigest}`, run, pinned: { digest: latestDigest, repository, tag } };
}

/** Whether the engine recorded `digest` in `repository` for the image (its RepoDigests). */
export function recordsDigest(repoDigests: readonly string[] | undefined, repository: string, digest: string): boolean {
  const wanted = tryParseImageReference(repository);
  const name = wanted ? repositoryName(wanted) : repository;
  return (repoDigests ?? []).some((entry) => {
    const at = entry.lastIndexOf('@');
    if (at === -1 || entry.slice(at + 1) !== digest) return false;
    const parsed = tryParseImageReference(entry.slice(0, at));
    return parsed !== undefined && repositoryName(parsed) === name;
  });
}

/**
 * After `pull` of a pinned target: checks the engine's record of the digest and tags the image. Throws
 * (the target fails, nothing stopped yet) when the engine did not record the digest the check resolved.
 */
export async function settlePinned(docker: EngineClient, target: PullTarget): Promise<void> {
  const { pinned } = target;
  if (!pinned) return;
  const image = await docker.getImage(target.pull).inspect();
  if (!recordsDigest(image.RepoDigests, pinned.repository, pinned.digest)) {
    throw new TidewatchError(
      'TW_ERR_DOCKER_PULL',
      `pull ${target.pull}: the engine did not record ${pinned.digest} for the pulled image (it has ${(image.RepoDigests ?? []).join(', ') || 'none'})`,
      502,
    );
  }
  if (pinned.tag !== undefined) await docker.getImage(image.Id).tag({ repo: pinned.repository, tag: pinned.tag });
}
