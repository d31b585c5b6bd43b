// The registry's answer for one target: compare the digest the registry serves for the target's tag
// with the digests the engine recorded for the running image (RepoDigests). The remote digest is
// memoised per run, so N containers of one image cost one request.
import {
  REGISTRY_PATH,
  errorMessage,
  formatImageReference,
  parseImageReference,
  repositoryName,
  tryParseImageReference,
  type ImageReference,
  type RunContext,
  type Staleness,
  type Target,
} from '../../core/index.js';
import type { RegistryClient } from './client.js';

export const SOURCE = REGISTRY_PATH;

interface RepoDigest {
  readonly repository: string | undefined;
  readonly digest: string;
}

/** `repo@sha256:…` → its repository (normalised) and digest. */
function splitRepoDigest(entry: string): RepoDigest | undefined {
  const at = entry.lastIndexOf('@');
  if (at === -1) return undefined;
  const parsed = tryParseImageReference(entry);
  return { repository: parsed ? repositoryName(parsed) : undefined, digest: entry.slice(at + 1) };
}

// The targets of one image share its RepoDigests array (the runtime hands the same one to each): it is
// split once per image, not once per container and question (docs/performance.md).
const splitDigests = new WeakMap<readonly string[], readonly RepoDigest[]>();

function repoDigestsOf(repoDigests: readonly string[]): readonly RepoDigest[] {
  let entries = splitDigests.get(repoDigests);
  if (!entries) {
    entries = repoDigests.map(splitRepoDigest).filter((e) => e !== undefined);
    splitDigests.set(repoDigests, entries);
  }
  return entries;
}

/** The digest the running image has in the target's own repository, else any recorded one. */
export function currentDigestOf(repoDigests: readonly string[], ref: ImageReference): string | undefined {
  const entries = repoDigestsOf(repoDigests);
  const own = repositoryName(ref);
  return (entries.find((e) => e.repository === own) ?? entries[0])?.digest;
}

/** Whether any recorded digest equals the registry's (the image may have been pulled under another name). */
export function matchesRemote(repoDigests: readonly string[], remote: string): boolean {
  return repoDigestsOf(repoDigests).some((entry) => entry.digest === remote);
}

// References are parsed once and shared (the core memoises them): the key is made once per reference
// too, one string object every target of the image hands to ctx.memo (docs/performance.md).
const memoKeys = new WeakMap<ImageReference, string>();

/** Memo key shared by every target of one image reference in a run. */
export function digestMemoKey(ref: ImageReference): string {
  let key = memoKeys.get(ref);
  if (key === undefined) {
    key = `registry:manifest-digest:${formatImageReference(ref)}`;
    memoKeys.set(ref, key);
  }
  return key;
}

export async function registryStaleness(client: RegistryClient, target: Target, ctx: RunContext): Promise<Staleness> {
  let ref: ImageReference;
  try {
    ref = parseImageReference(target.image);
  } catch (err) {
    return { source: SOURCE, stale: false, error: errorMessage(err) };
  }
  // A pinned digest can never move; nothing to ask.
  if (ref.digest) return { source: SOURCE, stale: false, currentDigest: ref.digest };
  // No RepoDigests: built locally (or loaded), never pulled from a registry, so nothing to compare with.
  if (target.repoDigests.length === 0) return { source: SOURCE, stale: false };
  const currentDigest = currentDigestOf(target.repoDigests, ref);
  let latestDigest: string;
  try {
    latestDigest = await ctx.memo(digestMemoKey(ref), () => client.manifestDigest(ref, ctx.signal));
  } catch (err) {
    const error = errorMessage(err);
    ctx.logger.debug({ container: target.name, image: target.image, err: error }, 'registry check failed');
    return { source: SOURCE, stale: false, error, ...(currentDigest ? { currentDigest } : {}) };
  }
  const matched = matchesRemote(target.repoDigests, latestDigest);
  return {
    source: SOURCE,
    stale: !matched,
    ...(matched ? { currentDigest: latestDigest } : currentDigest ? { currentDigest } : {}),
    latestDigest,
  };
}
