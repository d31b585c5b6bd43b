// The release-notes `review` tap (docs/versions.md#release-notes): a stale answer gains the release-notes finding, the
// location to read and, for a GitHub repository, the releases after the running version up to the latest.
// Releases come from `GET /repos/{owner}/{repo}/releases` (newest published first), page by page only while
// the running version (or an older one) is not found yet, and are chosen and ordered by version, the tag
// policy's rules (docs/tags.md), not by when they were published. Every page is a conditional request
// through the Git source's client: a repeated check costs 304s, which GitHub does not count. Each page is asked once per run, however many containers
// share the repository. What GitHub sends is untrusted: every field is bounded before it is kept.
import {
  errorMessage,
  FINDINGS,
  readFinding,
  tryParseImageReference,
  withFinding,
  type ReleaseNotes,
  type RunContext,
  type Staleness,
  type Target,
} from '../../core/index.js';
import { compareVersions, parseTag, type TagVersion } from '../../contracts/shared/tag-version.js';
import type { GitHubApi } from '../../contracts/index.js';
import { locate, type GitHubRepo, type Versions } from './location.js';

/** One release's note, as the release-notes finding holds it. */
type ReleaseNote = ReleaseNotes['entries'][number];

/** At most this many releases per container, newest first. */
export const MAX_NOTES = 10;
/** Bytes of Markdown kept per release. */
export const BODY_MAX_BYTES = 4096;
/** Releases per page, and pages read at most, while looking for the running version. */
export const PER_PAGE = 30;
export const MAX_PAGES = 3;
const TITLE_MAX = 256;
const VERSION_MAX = 128;
const VERSION_LABEL = 'org.opencontainers.image.version';
const VERSION_POLICIES = new Set(['patch', 'minor', 'major']);
const ROUTE = 'GET /repos/{owner}/{repo}/releases';
/**
 * A repository GitHub answers 404 for (gone, renamed away, private to the token) is not asked again for an
 * hour: a 404 carries no ETag, so asking at every check would spend one request of the rate limit each time.
 */
export const MISSING_REPO_TTL_MS = 60 * 60 * 1000;
const MISSING_REPO_ENTRIES = 2000;

interface Release extends ReleaseNote {
  readonly tag: string;
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/** At most BODY_MAX_BYTES of UTF-8, cut on a character boundary, marked when cut. */
export function boundBody(body: string): string {
  if (Buffer.byteLength(body) <= BODY_MAX_BYTES) return body;
  const budget = BODY_MAX_BYTES - Buffer.byteLength('…');
  let out = Buffer.from(body).subarray(0, budget).toString('utf8');
  // A character cut in half decodes to U+FFFD: drop it.
  while (Buffer.byteLength(out) > budget || out.endsWith('\uFFFD')) out = out.slice(0, -1);
  return `${out}…`;
}

/** One page of GitHub's answer, bounded: drafts and entries without a tag or a web page are left out. */
export function releasesOf(data: unknown): Release[] {
  if (!Array.isArray(data)) return [];
  const out: Release[] = [];
  for (const item of data.slice(0, PER_PAGE) as Record<string, unknown>[]) {
    if (typeof item !== 'object' || item === null || item.draft === true) continue;
    const tag = text(item.tag_name, VERSION_MAX);
    const url = text(item.html_url, 2048);
    if (!tag || !/^https?:\/\//.test(url)) continue;
    const published = text(item.published_at, 40);
    out.push({
      tag,
      version: tag,
      title: text(item.name, TITLE_MAX) || tag,
      url,
      ...(published && !Number.isNaN(Date.parse(published)) ? { publishedAt: new Date(published).toISOString() } : {}),
      body: boundBody(typeof item.body === 'string' ? item.body : ''),
    });
  }
  return out;
}

interface Page {
  readonly releases: readonly Release[];
  /** A full page: GitHub may have more. */
  readonly more: boolean;
}
const LAST_PAGE: Page = { releases: [], more: false };

function pageOf(data: unknown): Page {
  return { releases: releasesOf(data), more: Array.isArray(data) && data.length >= PER_PAGE };
}

const normal = (version: string): string => version.trim().toLowerCase().replace(/^v(?=\d)/, '');

function names(release: Release, version: string): boolean {
  const wanted = normal(version);
  return normal(release.tag) === wanted || normal(release.title) === wanted;
}

/** A release's version: its tag's, else its title's (`Release 2.1.0` names no version; `v2.1.0` does). */
function versionOf(release: Release): TagVersion | undefined {
  return parseTag(release.tag.trim()) ?? parseTag(release.title.trim());
}

/**
 * The tag policy's order (docs/tags.md), with an image's build counters or variant (`2.1.0-alpine3.19`) left
 * out when the two suffixes differ: the release `v2.1.0` is the image `2.1.0-alpine3.19`'s version.
 */
export function compareRelease(a: TagVersion, b: TagVersion): number {
  const c = compareVersions({ ...a, counters: [] }, { ...b, counters: [] });
  return c !== 0 || a.template !== b.template ? c : compareVersions(a, b);
}

/**
 * The releases after `current` up to `latest`, chosen and ordered by version (newest first, at most
 * MAX_NOTES): a backport published after the latest release is not "newer" for it, and when the running
 * version is older than every release read, all those read up to the latest are listed. Without a known
 * running version only the latest release; a latest version GitHub has no release for gives none (its notes
 * are not the latest's). Versions that cannot be read as versions fall back to GitHub's list order.
 */
export function between(releases: readonly Release[], versions: Versions): Release[] {
  const latest = versions.latest === undefined ? undefined : parseTag(versions.latest.trim());
  const current = versions.current === undefined ? undefined : parseTag(versions.current.trim());
  if ((versions.latest !== undefined && !latest) || (versions.current !== undefined && !current)) return inListOrder(releases, versions);
  const prefix = (latest ?? current)?.prefix;
  const read = releases
    .map((release) => ({ release, version: versionOf(release) }))
    .filter((r): r is { release: Release; version: TagVersion } => r.version !== undefined && (prefix === undefined || r.version.prefix === prefix))
    .sort((a, b) => compareRelease(b.version, a.version));
  const upTo = latest ? read.filter((r) => compareRelease(r.version, latest) <= 0) : read;
  if (latest && !upTo.some((r) => compareRelease(r.version, latest) === 0)) return [];
  const after = current ? upTo.filter((r) => compareRelease(r.version, current) > 0) : upTo.slice(0, 1);
  return after.slice(0, MAX_NOTES).map((r) => r.release);
}

/** GitHub's list order (newest published first), for versions the tag policy cannot read. */
function inListOrder(releases: readonly Release[], versions: Versions): Release[] {
  const start = versions.latest ? releases.findIndex((r) => names(r, versions.latest as string)) : 0;
  if (start === -1 || start >= releases.length) return [];
  const current = versions.current ? releases.findIndex((r, i) => i > start && names(r, versions.current as string)) : -1;
  const end = current === -1 ? releases.length : current;
  return releases.slice(start, Math.min(end, start + MAX_NOTES));
}

/** True once the releases read reach the running version (or an older one): later pages hold only older ones. */
function reached(releases: readonly Release[], current: string): boolean {
  const running = parseTag(current.trim());
  return releases.some((r) => {
    if (names(r, current)) return true;
    const version = running && versionOf(r);
    return version !== undefined && compareRelease(version, running as TagVersion) <= 0;
  });
}

export function versionsOf(staleness: Staleness, target: Target): Versions {
  const label = target.imageLabels[VERSION_LABEL]?.trim();
  const tags = readFinding(staleness, FINDINGS.tags);
  const tagVersion = tags?.policy && VERSION_POLICIES.has(tags.policy) ? tags.currentTag : undefined;
  const current = label || tagVersion;
  const tag = staleness.latestTag ?? tags?.currentTag ?? tryParseImageReference(target.image)?.tag;
  const latest = readFinding(staleness, FINDINGS.version);
  return {
    ...(current ? { current } : {}),
    ...(latest ? { latest } : {}),
    ...(tag ? { tag } : {}),
  };
}

export class ReleaseNotesReader {
  readonly #api: () => GitHubApi | undefined;
  readonly #now: () => number;
  /** `owner/name` (lower case) → until when its 404 stands; oldest first out. */
  readonly #missing = new Map<string, number>();

  constructor(api: () => GitHubApi | undefined, now: () => number = Date.now) {
    this.#api = api;
    this.#now = now;
  }

  async review(staleness: Staleness, target: Target, ctx: RunContext): Promise<Staleness> {
    if (readFinding(staleness, FINDINGS.releaseNotes)) return staleness;
    const versions = versionsOf(staleness, target);
    const location = locate(target, versions);
    const api = this.#api();
    let url = location.url;
    let entries: Release[] = [];
    if (location.repo && api) {
      try {
        entries = await this.#notes(api, location.repo, versions, ctx);
      } catch (err) {
        // Rate limited: no request goes out before GitHub's reset (the client's gate); the check keeps the
        // location and goes on without the notes (docs/versions.md#rate-limits).
        ctx.logger.debug({ container: target.name, err: errorMessage(err) }, 'release notes not read');
      }
      // From the image's source: the newest release's own page says more than the list of all of them.
      if (entries[0] && location.fromSource) url = entries[0].url;
    }
    if (!url) return staleness;
    const notes = entries.map(({ tag: _tag, ...note }) => note);
    return withFinding(staleness, FINDINGS.releaseNotes, { url, entries: notes });
  }

  /** Pages until the running version is among the releases read (or there are no more, or MAX_PAGES). */
  async #notes(api: GitHubApi, repo: GitHubRepo, versions: Versions, ctx: RunContext): Promise<Release[]> {
    const releases: Release[] = [];
    const repoKey = `${repo.owner}/${repo.name}`.toLowerCase();
    const missingUntil = this.#missing.get(repoKey);
    if (missingUntil !== undefined && missingUntil > this.#now()) return [];
    this.#missing.delete(repoKey);
    for (let page = 1; page <= MAX_PAGES; page++) {
      const key = `release-notes:${repo.owner}/${repo.name}:${page}`;
      const params = { owner: repo.owner, repo: repo.name, per_page: PER_PAGE, page };
      const batch = await ctx.memo(key, async () => {
        const found = await api.get(ROUTE, params, pageOf, ctx.signal);
        if (found === undefined && page === 1) this.#rememberMissing(repoKey);
        return found ?? LAST_PAGE;
      });
      releases.push(...batch.releases);
      const seen = versions.current === undefined || reached(releases, versions.current);
      if (seen || !batch.more) break;
    }
    return between(releases, versions);
  }

  #rememberMissing(repoKey: string): void {
    this.#missing.set(repoKey, this.#now() + MISSING_REPO_TTL_MS);
    if (this.#missing.size > MISSING_REPO_ENTRIES) this.#missing.delete(this.#missing.keys().next().value as string);
  }
}
