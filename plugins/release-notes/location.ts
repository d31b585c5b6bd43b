// Where a container's release notes are (docs/versions.md#release-notes): the `release-notes` label, a URL
// template with `{version}` and `{tag}`; What's Up Docker's `wud.link.template` in its own placeholder syntax
// (`${major}`, `${minor}`, `${patch}`, `${prerelease}`, `${original}`/`${raw}`, `${transformed}`); else the
// running image's `org.opencontainers.image.source`. Labels are the user's, image labels the publisher's:
// both are bounded and only http(s) URLs come out.
import { readLabel, type Target } from '../../core/index.js';

export const SOURCE_LABEL = 'org.opencontainers.image.source';
const URL_MAX = 2048;

export interface Versions {
  /** The running version: its image's version label, else its tag under a version policy. */
  readonly current?: string;
  readonly latest?: string;
  /** The tag the update leads to (the newer tag, else the running one). */
  readonly tag?: string;
}

export interface GitHubRepo {
  readonly owner: string;
  readonly name: string;
}

export interface Location {
  /** A page to read, when one is known before asking GitHub. */
  readonly url?: string;
  /** The repository whose releases to read, when the location is on GitHub. */
  readonly repo?: GitHubRepo;
  /** True when found from the image's source label (not a label's template): a release's own page is better. */
  readonly fromSource?: boolean;
}

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

function httpUrl(text: string): URL | undefined {
  if (text.length > URL_MAX) return undefined;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** `https://github.com/owner/repo[.git][/…]` → owner and name; anything else has no GitHub releases. */
export function githubRepoOf(url: URL): GitHubRepo | undefined {
  if (url.hostname !== 'github.com' && url.hostname !== 'www.github.com') return undefined;
  const [owner, raw] = url.pathname.split('/').filter(Boolean);
  const name = raw?.replace(/\.git$/, '');
  return owner && name && NAME.test(owner) && NAME.test(name) ? { owner, name } : undefined;
}

/** What's Up Docker's placeholders, from the version it read (`1.2.3-rc1` → 1, 2, 3, rc1). */
function wudValues(versions: Versions): Record<string, string | undefined> {
  const version = versions.latest?.replace(/^v/, '');
  const match = version ? /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-(.+))?/.exec(version) : null;
  return {
    major: match?.[1],
    minor: match?.[2],
    patch: match?.[3],
    prerelease: match?.[4],
    original: versions.tag ?? versions.latest,
    raw: versions.tag ?? versions.latest,
    transformed: versions.latest,
  };
}

/** Fills a template; undefined when it names a value that is not known (a link to the wrong page is worse). */
function fill(template: string, pattern: RegExp, values: Record<string, string | undefined>): string | undefined {
  let missing = false;
  const out = template.replace(pattern, (whole, name: string) => {
    const value = values[name];
    if (value === undefined) {
      missing = true;
      return whole;
    }
    return encodeURIComponent(value);
  });
  return missing ? undefined : out;
}

export function locate(target: Target, versions: Versions): Location {
  const own = readLabel(target.labels, 'release-notes')?.trim();
  const wud = target.labels['wud.link.template']?.trim();
  let templated: string | undefined;
  if (own) templated = fill(own, /\{(version|tag)\}/g, { version: versions.latest, tag: versions.tag });
  else if (wud) templated = fill(wud, /\$\{(major|minor|patch|prerelease|original|raw|transformed)\}/g, wudValues(versions));
  if (own || wud) {
    const url = templated ? httpUrl(templated) : undefined;
    if (!url) return {};
    const repo = githubRepoOf(url);
    return { url: url.href, ...(repo ? { repo } : {}) };
  }
  const source = target.imageLabels[SOURCE_LABEL]?.trim();
  const url = source ? httpUrl(source) : undefined;
  const repo = url ? githubRepoOf(url) : undefined;
  // The source is a repository, not a page of notes: its releases page is, until a release is matched.
  return repo ? { url: `https://github.com/${repo.owner}/${repo.name}/releases`, repo, fromSource: true } : {};
}
