// Choosing the commit a container follows out of a ref advertisement, the way `git ls-remote` users
// expect: no ref means the remote's default branch (its HEAD), a bare name is a branch before it is
// a tag, a full `refs/...` name is used as given, and an annotated tag means the commit it points at.
import { TidewatchError } from '../../core/index.js';
import type { RefAdvertisement } from './pkt-line.js';

export interface SelectedRef {
  /** The ref as reported: the label as written, or the default branch's short name. */
  readonly ref: string;
  /** Full name of the ref that matched (`refs/heads/main`, `refs/tags/v1`, or `HEAD`). */
  readonly fullName: string;
  /** The commit (annotated tags peeled). */
  readonly commit: string;
}

export class RefNotFoundError extends TidewatchError {
  constructor(message: string) {
    super('TW_ERR_GIT_REF_NOT_FOUND', message, 404);
    this.name = 'RefNotFoundError';
  }
}

/** Candidate full names for a ref label, in the order they are tried. */
export function refCandidates(ref: string): string[] {
  if (ref === 'HEAD' || ref.startsWith('refs/')) return [ref];
  return [`refs/heads/${ref}`, `refs/tags/${ref}`];
}

/** `refs/heads/main` → `main`; other names unchanged. */
export function shortBranchName(fullName: string): string {
  return fullName.startsWith('refs/heads/') ? fullName.slice('refs/heads/'.length) : fullName;
}

function commitOf(adv: RefAdvertisement, fullName: string): string | undefined {
  // `^{}` lines exist only for annotated tags; for everything else the advertised id is the commit.
  return adv.peeled.get(fullName) ?? adv.refs.get(fullName);
}

/** The commit for `ref` (or the default branch when `ref` is empty); throws RefNotFoundError. */
export function selectRef(adv: RefAdvertisement, ref: string | undefined): SelectedRef {
  if (!ref) {
    const head = adv.refs.get('HEAD');
    if (!head) throw new RefNotFoundError('the remote advertises no HEAD (empty repository?)');
    const target = adv.symrefs.get('HEAD');
    // Without the symref capability (very old servers) the branch name is unknown; HEAD still is.
    return { ref: target ? shortBranchName(target) : 'HEAD', fullName: target ?? 'HEAD', commit: head };
  }
  for (const fullName of refCandidates(ref)) {
    const commit = commitOf(adv, fullName);
    if (commit) return { ref, fullName, commit };
  }
  throw new RefNotFoundError(`ref ${JSON.stringify(ref)} not found on the remote`);
}
