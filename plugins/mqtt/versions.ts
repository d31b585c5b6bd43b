// What a container's update entity shows as its versions, title and release notes link (docs/mqtt.md#versions).
// Installed: the image's `org.opencontainers.image.version` label when it has one, else the registry digest
// of the running image (the image id for local builds). Latest: the installed version when the last check
// found nothing newer, else the newer digest (or image id, or commit) the check named: the label of an image
// not pulled yet is not known. Digests are shown as `sha256:` and 12 hex digits, prefix kept: Home Assistant
// compares versions, and bare hex digits could read as a number.
// Tag updates (docs/mqtt.md#versions): while a newer tag is chosen, installed is the current tag and latest
// the new one; a container on a version policy (patch, minor, major) that is up to date shows its tag as both.
import { DOCUMENTED_FINDING_KEYS, FINDINGS, findingLines, readFinding, repoDigest, type ReleaseNotes, type Staleness, type Target } from '../../core/index.js';

export const OCI_VERSION = 'org.opencontainers.image.version';
const OCI_TITLE = 'org.opencontainers.image.title';
const OCI_URL = 'org.opencontainers.image.url';
const OCI_SOURCE = 'org.opencontainers.image.source';

export function shortDigest(digest: string): string {
  const [algorithm, hex] = digest.includes(':') ? digest.split(':', 2) : ['sha256', digest];
  return `${algorithm}:${(hex ?? '').slice(0, 12)}`;
}

const VERSION_POLICIES = new Set(['patch', 'minor', 'major']);

/** The versions as tags, when the check is about tags (see above); undefined: digests as before. */
function tagVersions(staleness?: Staleness): { installed: string; latest: string } | undefined {
  const tags = readFinding(staleness, FINDINGS.tags);
  if (!staleness || staleness.error !== undefined || staleness.unchecked || !tags?.currentTag) return undefined;
  const { currentTag } = tags;
  const { latestTag } = staleness;
  if (staleness.stale) return latestTag && latestTag !== currentTag ? { installed: currentTag, latest: latestTag } : undefined;
  return tags.policy && VERSION_POLICIES.has(tags.policy) ? { installed: currentTag, latest: currentTag } : undefined;
}

export function installedVersion(target: Target, staleness?: Staleness): string {
  const tags = tagVersions(staleness);
  if (tags) return tags.installed;
  const label = target.imageLabels[OCI_VERSION]?.trim();
  if (label) return label;
  // The check's current digest, else the one the engine recorded for the target's own repository.
  return shortDigest(repoDigest(target, staleness) || target.imageId);
}

/** Undefined until a check answered for the running image (an error or an unchecked target says nothing). */
export function latestVersion(target: Target, staleness?: Staleness): string | undefined {
  if (!staleness || staleness.error !== undefined || staleness.unchecked) return undefined;
  const tags = tagVersions(staleness);
  if (tags) return tags.latest;
  if (!staleness.stale) return installedVersion(target, staleness);
  // The candidate's own version, read from the registry (docs/versions.md).
  const version = readFinding(staleness, FINDINGS.version);
  if (version) return version;
  if (staleness.latestDigest) return shortDigest(staleness.latestDigest);
  if (staleness.latestImageId) return shortDigest(staleness.latestImageId);
  const commit = readFinding(staleness, FINDINGS.git)?.commit;
  if (commit) return `commit ${commit.slice(0, 12)}`;
  return 'newer';
}

export function titleOf(target: Target): string {
  return target.imageLabels[OCI_TITLE]?.trim() || target.image;
}

/** Home Assistant's limit on `release_summary`. */
export const SUMMARY_MAX = 255;

/** The update's release notes location (docs/versions.md#release-notes), else the image's web page or source from its OCI labels, when it is an http(s) URL. */
export function releaseUrlOf(target: Target, staleness?: Staleness): string | undefined {
  const notes = pendingNotes(staleness);
  if (notes && /^https?:\/\/[^\s]+$/i.test(notes.url)) return notes.url;
  for (const key of [OCI_URL, OCI_SOURCE]) {
    const value = target.imageLabels[key]?.trim();
    if (value && /^https?:\/\/[^\s]+$/i.test(value)) return value;
  }
  return undefined;
}

function pendingNotes(staleness?: Staleness): ReleaseNotes | undefined {
  return staleness?.stale && !staleness.error ? readFinding(staleness, FINDINGS.releaseNotes) : undefined;
}

/**
 * The releases an update brings, in at most 255 characters (Home Assistant's limit): each version and its
 * title, newest first, then plugins' own findings; undefined when there is neither.
 */
export function releaseSummaryOf(staleness?: Staleness): string | undefined {
  const entries = pendingNotes(staleness)?.entries ?? [];
  const releases = entries.map((e) => (e.title && e.title !== e.version ? `${e.version}: ${e.title}` : e.version));
  // Then plugins' own findings about the update, each by its key and its one line (docs/mqtt.md#findings).
  const found = staleness?.stale && !staleness.error ? findingLines(staleness, DOCUMENTED_FINDING_KEYS) : [];
  const lines = [...releases, ...found.map((f) => `${f.key}: ${f.summary}`)];
  if (lines.length === 0) return undefined;
  const text = lines.join('; ');
  return text.length <= SUMMARY_MAX ? text : `${text.slice(0, SUMMARY_MAX - 1)}…`;
}
