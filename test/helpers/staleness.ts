// Stale answers for tests, written with the fields the tag policy, the version, release notes and Git
// source give, which the answer carries as findings (docs/plugins.md#findings): one place turns them into
// the slot, so a test reads as the answer it describes.
import { FINDINGS, readFinding, withFinding, type GitStaleness, type ReleaseNotes, type Staleness, type TagFacts } from '../../core/index.js';

export interface StalenessFields extends Staleness {
  readonly tagPolicy?: string;
  readonly currentTag?: string;
  readonly updateKind?: TagFacts['updateKind'];
  readonly latestVersion?: string;
  readonly releaseNotes?: ReleaseNotes;
  readonly git?: GitStaleness;
}

export function asStaleness(fields: StalenessFields): Staleness {
  const { tagPolicy, currentTag, updateKind, latestVersion, releaseNotes, git, ...rest } = fields;
  let answer: Staleness = rest;
  // Spread from another answer: its tag facts stay unless a field here replaces one.
  const tags: TagFacts = { ...readFinding(rest, FINDINGS.tags), ...(tagPolicy ? { policy: tagPolicy } : {}), ...(currentTag ? { currentTag } : {}), ...(updateKind ? { updateKind } : {}) };
  if (Object.keys(tags).length > 0) answer = withFinding(answer, FINDINGS.tags, tags);
  if (latestVersion) answer = withFinding(answer, FINDINGS.version, latestVersion);
  if (releaseNotes) answer = withFinding(answer, FINDINGS.releaseNotes, releaseNotes);
  if (git) answer = withFinding(answer, FINDINGS.git, git);
  return answer;
}

/** The answer with its tag, version, release-notes and Git findings as plain fields again (the inverse of asStaleness). */
export function legacyView(answer: Staleness): StalenessFields {
  const { findings: _findings, ...rest } = answer;
  const tags = readFinding(answer, FINDINGS.tags);
  const version = readFinding(answer, FINDINGS.version);
  const notes = readFinding(answer, FINDINGS.releaseNotes);
  const git = readFinding(answer, FINDINGS.git);
  return {
    ...rest,
    ...(tags?.policy ? { tagPolicy: tags.policy } : {}),
    ...(tags?.currentTag ? { currentTag: tags.currentTag } : {}),
    ...(tags?.updateKind ? { updateKind: tags.updateKind } : {}),
    ...(version ? { latestVersion: version } : {}),
    ...(notes ? { releaseNotes: notes } : {}),
    ...(git ? { git } : {}),
  };
}
