// The findings the HTTP API documents under field names of its own (docs/plugins.md#findings): several plugins
// write or read each of them (a source or an enricher writes, the check record, notifications, MQTT and the
// state plugin read), so their keys and value types are the core's. Any other finding is a plugin's own,
// declared in its folder, and shown by its key and one line.
import { defineFinding } from './findings.js';

/** What signature verification found for a candidate digest (docs/signatures.md#verdicts). */
export type SignatureVerdict = 'verified' | 'unsigned' | 'invalid' | 'error';

export interface SignatureCheck {
  readonly verdict: SignatureVerdict;
  /** The digest verified: the staleness' `latestDigest`. */
  readonly digest: string;
  /** A sentence: who signed (verified) or why not. */
  readonly reason: string;
  /** The policy that asked: `warn` reports only, `enforce` skips anything but verified. */
  readonly policy: 'warn' | 'enforce';
}

/** What the source of the `git` path found (the check record's `git_*` fields). */
export interface GitStaleness {
  readonly repo: string;
  readonly ref: string;
  /** Head commit of the ref on the remote. */
  readonly commit?: string;
  /** Commit the running image was built from. */
  readonly currentCommit?: string;
  readonly changelog?: string;
}

/** The releases between two versions of an image, from its source repository (docs/versions.md#release-notes). */
export interface ReleaseNotes {
  /** The resolved release-notes location (the check record's `changelog`). */
  readonly url: string;
  /** Newest first, at most 10, each `body` at most 4 KiB; empty when only the location is known. */
  readonly entries: readonly ReleaseNote[];
}

export interface ReleaseNote {
  readonly version: string;
  readonly title: string;
  readonly url: string;
  /** RFC 3339, when the code host says. */
  readonly publishedAt?: string;
  /** Markdown as text, never rendered by Tidewatch outside the dashboard's safe renderer. */
  readonly body: string;
}

/**
 * The tag policy's answer (docs/tags.md): the policy applied (`digest`, `patch`, `minor`, `major`, `pin`), the
 * running reference's tag and, for a stale answer, what kind of update it is. The newer tag itself is the
 * stale answer's `latestTag`: what a runtime runs, not a finding.
 */
export interface TagFacts {
  readonly policy?: string;
  readonly currentTag?: string;
  readonly updateKind?: 'digest' | 'patch' | 'minor' | 'major';
}

/** The findings the HTTP API maps back onto its documented fields, by name. */
export const FINDINGS = Object.freeze({
  /** Set by the source of the `git` path (docs/interface.md#git-watched-containers). */
  git: defineFinding<GitStaleness>('git', {
    summary: (git) => `${git.repo} ${git.ref}${git.commit ? ` at ${git.commit.slice(0, 12)}` : ''}`,
  }),
  /** The verdict on `latestDigest`, added by the signatures plugin's `review` tap (docs/signatures.md). */
  signature: defineFinding<SignatureCheck>('signature', {
    summary: (check) => `signature ${check.verdict}: ${check.reason}`,
  }),
  /** What changed up to the latest version, added by the release-notes plugin (docs/versions.md#release-notes). */
  releaseNotes: defineFinding<ReleaseNotes>('release-notes', {
    summary: (notes) => `release notes at ${notes.url}${notes.entries.length > 0 ? ` (${notes.entries.length} releases)` : ''}`,
  }),
  /** The tag policy's answer, from the registry source (docs/tags.md#what-the-api-shows). */
  tags: defineFinding<TagFacts>('tags', {
    summary: (tags) =>
      [tags.policy ? `tag policy ${tags.policy}` : 'tag', tags.currentTag, tags.updateKind ? `${tags.updateKind} update` : undefined]
        .filter(Boolean)
        .join(', '),
  }),
  /**
   * The version a stale answer leads to (docs/versions.md), added by a `review` tap: the newer tag under a tag
   * policy, else the candidate image's `org.opencontainers.image.version` as its registry serves it.
   */
  version: defineFinding<string>('version', { summary: (version) => `version ${version}` }),
});

/** The keys of FINDINGS: the HTTP API shows these under its own field names, any other in `findings`. */
export const DOCUMENTED_FINDING_KEYS: ReadonlySet<string> = new Set(Object.values(FINDINGS).map((finding) => finding.key));
