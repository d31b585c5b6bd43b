// The registry digest of the image a target runs, as the check record and the audit trail name it
// (docs/http-api.md, docs/state.md): the RepoDigests entry of the image's own repository (an image pushed
// to two registries has one entry per registry), else the first one, else empty (a local build has none).
import { repositoryName, tryParseImageReference } from './image-reference.js';
import type { Staleness, Target } from './types.js';

/** `repo@sha256:…` → `sha256:…` (the registry sends and compares the bare digest). */
export function bareDigest(value: string): string {
  const at = value.lastIndexOf('@');
  return at === -1 ? value : value.slice(at + 1);
}

export function repoDigest(target: Pick<Target, 'image' | 'repoDigests'>, staleness?: Pick<Staleness, 'currentDigest'>): string {
  if (staleness?.currentDigest) return bareDigest(staleness.currentDigest);
  const wanted = tryParseImageReference(target.image);
  if (wanted) {
    for (const entry of target.repoDigests) {
      const at = entry.lastIndexOf('@');
      const repo = at === -1 ? undefined : tryParseImageReference(entry.slice(0, at));
      if (repo && repositoryName(repo) === repositoryName(wanted)) return bareDigest(entry);
    }
  }
  const first = target.repoDigests[0];
  return first === undefined ? '' : bareDigest(first);
}
