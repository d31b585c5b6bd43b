// Commit identity as images and Git remotes report it: an image's `org.opencontainers.image.revision` (an OCI
// annotation, often an abbreviated id) is how a runtime honours `Staleness.requiredRevision`; the Git source
// compares it with a remote head, the runtime with the head it was asked to apply, and both must agree on what
// "the same commit" means, so the rule is shared by both (contracts/shared). The core carries the field and
// never reads it.

/** The OCI image label holding the commit an image was built from. */
export const OCI_REVISION = 'org.opencontainers.image.revision';

const ABBREVIATED = /^[0-9a-f]{7,}$/;

/** Same commit: equal ids, or an abbreviated id (at least 7 hex digits, as git prints) of the full one. */
export function sameCommit(full: string, other: string | undefined): boolean {
  if (!other) return false;
  const f = full.trim().toLowerCase();
  const o = other.trim().toLowerCase();
  return f === o || (ABBREVIATED.test(o) && f.startsWith(o)) || (ABBREVIATED.test(f) && o.startsWith(f));
}
