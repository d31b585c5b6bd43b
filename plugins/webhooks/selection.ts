// Which watched targets a batch of hints concerns (docs/webhooks.md#which-containers): repositories are
// compared as normalised registry host + path (core/image-reference.ts). A same-tag container needs the
// pushed tag; a tag-policy container (label `tidewatch.tag.policy`, else `--tag-policy`: `patch`, `minor`
// or `major`) takes any tag of its repository; a push known only by digest (a platform manifest) concerns every container of it.
// Git-watched containers match a push to their `git.repo` on the ref they follow.
import { GIT_PATH, readLabel, repositoryName, tryParseImageReference, type Target } from '../../core/index.js';
import { normaliseGitRepo, type Hint } from './hints.js';

/** What one repository's burst of hints adds up to. */
export interface Batch {
  readonly key: string;
  /** `image`: a registry repository; `git`: a Git repository. */
  readonly kind: 'image' | 'git';
  /** Normalised repository (registry) or `host/path` (Git). */
  readonly repository: string;
  /** Tags pushed (registry). */
  readonly tags: Set<string>;
  /** A push known by digest only was among the hints (a signature's too: the digest it signs may be any tag's). */
  untagged: boolean;
  /** Image digests a signature was pushed for. */
  readonly signed: Set<string>;
  /** Git refs pushed, and the default branch's ref when known. */
  readonly refs: Set<string>;
  defaultRef: string | undefined;
}

export function batchKey(hint: Hint): string {
  return hint.kind === 'image' ? `image:${hint.repository}` : `git:${hint.repo}`;
}

export function newBatch(hint: Hint): Batch {
  return {
    key: batchKey(hint),
    kind: hint.kind,
    repository: hint.kind === 'image' ? hint.repository : hint.repo,
    tags: new Set(),
    untagged: false,
    signed: new Set(),
    refs: new Set(),
    defaultRef: undefined,
  };
}

export function addHint(batch: Batch, hint: Hint): void {
  if (hint.kind === 'image') {
    if (hint.signs !== undefined && batch.signed.size < 256) batch.signed.add(hint.signs);
    if (hint.tag === undefined) batch.untagged = true;
    else if (batch.tags.size < 256) batch.tags.add(hint.tag);
  } else {
    if (batch.refs.size < 256) batch.refs.add(hint.ref);
    batch.defaultRef ??= hint.defaultRef;
  }
}

/** Policies that may move a container to another tag (docs/webhooks.md#which-containers); `digest` and `pin` never do. */
const TAG_MOVING = new Set(['patch', 'minor', 'major']);

/** The container's label `tidewatch.tag.policy`, else the global `--tag-policy` (`digest` when there is none). */
function followsOtherTags(target: Target, defaultPolicy: string): boolean {
  const policy = readLabel(target.labels, 'tag.policy')?.trim().toLowerCase() || defaultPolicy.toLowerCase();
  return TAG_MOVING.has(policy);
}

function imageMatches(target: Target, batch: Batch, defaultPolicy: string): boolean {
  const ref = tryParseImageReference(target.image);
  if (!ref || repositoryName(ref) !== batch.repository) return false;
  if (followsOtherTags(target, defaultPolicy) || batch.untagged) return true;
  return ref.tag !== undefined && batch.tags.has(ref.tag);
}

/** `main`, `heads/main` and `refs/heads/main` all name the branch; a bare name may be a tag too. */
function refCandidates(label: string): string[] {
  const ref = label.trim();
  if (ref.startsWith('refs/')) return [ref];
  if (ref.startsWith('heads/') || ref.startsWith('tags/')) return [`refs/${ref}`];
  return [`refs/heads/${ref}`, `refs/tags/${ref}`];
}

function gitMatches(target: Target, batch: Batch): boolean {
  const label = readLabel(target.labels, 'git.repo');
  if (!label || normaliseGitRepo(label) !== batch.repository) return false;
  const refLabel = readLabel(target.labels, 'git.ref')?.trim();
  // No git.ref: the container follows the remote's HEAD, the default branch.
  if (!refLabel || refLabel === 'HEAD') return batch.defaultRef === undefined || batch.refs.has(batch.defaultRef);
  return refCandidates(refLabel).some((ref) => batch.refs.has(ref));
}

/** The names of the targets the batch concerns, each once; `defaultPolicy` is the global `--tag-policy`. */
export function selectTargets(
  targets: readonly Target[],
  batch: Batch,
  watchPath: (target: Target) => string,
  defaultPolicy = 'digest',
): string[] {
  const names = new Set<string>();
  for (const target of targets) {
    const match =
      batch.kind === 'git' ? watchPath(target) === GIT_PATH && gitMatches(target, batch) : imageMatches(target, batch, defaultPolicy);
    if (match) names.add(target.name);
  }
  return [...names];
}
