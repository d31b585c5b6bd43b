// The shared rules of the state (docs/state.md): what a check's result becomes as a container's last
// check, and how a person's name for a container is keyed. The store itself is the state plugin's
// (STATE_STORE); core keeps its interface (state.ts).
import { findingLines, readFinding } from './findings.js';
import { DOCUMENTED_FINDING_KEYS, FINDINGS } from './known-findings.js';
import type { ContainerKey, LastCheck } from './state.js';
import { bareDigest } from './repo-digest.js';
import type { CheckResult, Staleness, Target } from './types.js';

/** The tag policy's fields of a staleness answer (docs/tags.md), only those it has, under the names kept. */
function tagsOf(staleness: Staleness): LastCheck['tags'] | undefined {
  const facts = readFinding(staleness, FINDINGS.tags);
  const kept = { tagPolicy: facts?.policy, currentTag: facts?.currentTag, latestTag: staleness.latestTag, updateKind: facts?.updateKind, note: staleness.note };
  const tags = Object.fromEntries(Object.entries(kept).filter(([, value]) => value));
  return Object.keys(tags).length > 0 ? (tags as LastCheck['tags']) : undefined;
}

/** The one line of every finding the HTTP API has no field of its own for (docs/plugins.md#findings). */
function otherFindings(staleness: Staleness): LastCheck['findings'] {
  const lines = findingLines(staleness, DOCUMENTED_FINDING_KEYS);
  return lines.length > 0 ? Object.fromEntries(lines.map((line) => [line.key, line.summary])) : undefined;
}

/** Registry errors can carry a whole answer body: a last check keeps the first 200 characters of why. */
function lastCheckError(error: string): string {
  return error.length > 200 ? `${error.slice(0, 199)}…` : error;
}

/**
 * A check's result as a container's last check (docs/state.md#last-checks): what the state store keeps, and
 * what the HTTP API keeps in memory when there is no store.
 */
export function lastCheckOf({ target, staleness, checkedAt }: CheckResult): LastCheck {
  const tags = tagsOf(staleness);
  const findings = otherFindings(staleness);
  const latestVersion = readFinding(staleness, FINDINGS.version);
  const releaseNotes = readFinding(staleness, FINDINGS.releaseNotes);
  return {
    ...(tags ? { tags } : {}),
    name: target.name,
    ...(target.host ? { host: target.host } : {}),
    updateAvailable: staleness.stale && !staleness.error,
    latestDigest: staleness.latestDigest ? bareDigest(staleness.latestDigest) : '',
    checkedAt: checkedAt.toISOString(),
    ...(staleness.error ? { error: lastCheckError(staleness.error) } : {}),
    // Only an update has a version to go to and notes to read (docs/versions.md).
    ...(staleness.stale && !staleness.error && latestVersion ? { latestVersion } : {}),
    ...(staleness.stale && !staleness.error && releaseNotes ? { releaseNotes } : {}),
    ...(findings ? { findings } : {}),
  };
}

/** The name (and engine) a person gives for a target (docs/hosts.md). */
export function targetKey(target: Pick<Target, 'name' | 'host'>): ContainerKey {
  return { name: target.name, ...(target.host ? { host: target.host } : {}) };
}

export function containerKey(key: ContainerKey): string {
  return key.host ? `${key.host}|${key.name}` : key.name;
}
