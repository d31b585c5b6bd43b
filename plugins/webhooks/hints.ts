// What a webhook payload turns into (docs/webhooks.md#handling): hints, never instructions. A hint names a
// repository (and the tag or digest pushed) or a Git ref; the plugin re-checks the registry or the Git host
// itself before anything is applied. Everything here reads untrusted input: bounded, typed defensively.
import { parseImageReference, repositoryName } from '../../core/index.js';

export interface ImageHint {
  readonly kind: 'image';
  /** Normalised `registry/repository` (core/image-reference.ts): `docker.io/library/nginx`. */
  readonly repository: string;
  readonly tag?: string;
  readonly digest?: string;
  /** The sender's own id for the event (Distribution's `events[].id`), for duplicate detection. */
  readonly eventId?: string;
  /**
   * A signature was pushed for this image digest (cosign's `sha256-<hex>.sig` tag, or its referrers tag
   * `sha256-<hex>`): its negative verdict is re-opened before the run (docs/webhooks.md#signatures-arriving).
   */
  readonly signs?: string;
}

export interface GitHint {
  readonly kind: 'git';
  /** `host/owner/name`, lower-case, no scheme, credentials or `.git` (docs/webhooks.md#github-ghcrio-packages-and-pushes-for-git-watched-containers). */
  readonly repo: string;
  /** The ref pushed: `refs/heads/main`, `refs/tags/v1`. */
  readonly ref: string;
  /** `refs/heads/<default branch>`, when the sender says: what a container without `git.ref` follows. */
  readonly defaultRef?: string;
  readonly commit?: string;
}

export type Hint = ImageHint | GitHint;

export interface ParsedPayload {
  /** Events the payload held, relevant or not (the 202's `events`). */
  readonly events: number;
  readonly hints: readonly Hint[];
  /** Set when the payload is not of its kind's shape at all (a generic body without `repository`): a 400. */
  readonly invalid?: string;
}

/** At most this many events of one payload are read (a Distribution envelope holds a few dozen at most). */
export const MAX_EVENTS = 256;

const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function str(value: unknown, max = 512): string | undefined {
  return typeof value === 'string' && value !== '' && value.length <= max ? value : undefined;
}

export function obj(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** A registry push hint from a host and a path (or a whole reference), or undefined when it is not a valid name. */
export function imageHint(reference: string, tag: unknown, digest: unknown, eventId?: unknown): ImageHint | undefined {
  let repository: string;
  try {
    const ref = parseImageReference(reference, { defaultTag: false });
    repository = repositoryName(ref);
  } catch {
    return undefined;
  }
  const t = str(tag, 128);
  const d = str(digest, 128);
  const id = str(eventId, 128);
  return {
    kind: 'image',
    repository,
    ...(t !== undefined && TAG.test(t) ? { tag: t } : {}),
    ...(d !== undefined && DIGEST.test(d) ? { digest: d } : {}),
    ...(id !== undefined ? { eventId: id } : {}),
  };
}

/**
 * The image digest a cosign signature tag names: `sha256-<hex>.sig` (the legacy format) or `sha256-<hex>`
 * (the referrers tag cosign 3 writes its bundles under on registries without the referrers API). Attestation
 * (`.att`) and SBOM (`.sbom`) tags sign nothing.
 */
export function signedDigestOf(tag: string): string | undefined {
  const match = /^sha256-([0-9a-f]{64})(?:\.sig)?$/.exec(tag);
  return match ? `sha256:${match[1] as string}` : undefined;
}

/** `https://user@github.com/Org/App.git` → `github.com/org/app`; scp-like `git@host:org/app.git` too. */
export function normaliseGitRepo(value: string): string | undefined {
  const text = value.trim();
  if (text === '' || text.length > 512) return undefined;
  const scp = text.includes('://') ? null : /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/.exec(text);
  let host: string;
  let path: string;
  if (scp && (scp[1] as string).includes('.')) {
    host = scp[1] as string;
    path = scp[2] as string;
  } else {
    try {
      const url = new URL(text.includes('://') ? text : `https://${text}`);
      host = url.host;
      path = url.pathname;
    } catch {
      return undefined;
    }
  }
  const clean = path.replace(/^\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '');
  if (clean === '') return undefined;
  return `${host.toLowerCase().replace(/^www\.github\.com$/, 'github.com')}/${clean.toLowerCase()}`;
}
