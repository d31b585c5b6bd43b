// What "newer" means for tags (docs/tags.md): pure, no I/O, table-tested. A tag's shape is a prefix, an
// optional `v`, 1 to 4 numeric segments and a suffix; a candidate must have the same prefix, the same `v`,
// the same number of segments and the same suffix template (each run of digits read as `#`), so
// `1.25.3-alpine` only ever moves to `x.y.z-alpine`. Everything compares as numbers, never as strings.
//
// Not the `semver` package: Docker tags are not SemVer. They have 1, 2 or 4 segments (`16`, `1.25`,
// `1.2.3.4`), build counters in the suffix (`-ls258`, `-r1`) that order releases of one version, variants
// that must never change (`-alpine`), and pre-release words in any position (`-rc1-alpine`); semver would
// refuse most of them or coerce them into something else (`semver.coerce('1.25.3-alpine')` is `1.25.3`,
// which is the What's Up Docker -alpine → -perl mistake).
import {
  isArtifactTag,
  compareDigits,
  compareVersions,
  parseTag,
  sameShape,
  type TagVersion,
} from '../../../contracts/shared/tag-version.js';

export const TAG_POLICIES = ['digest', 'patch', 'minor', 'major', 'pin'] as const;
export type TagPolicy = (typeof TAG_POLICIES)[number];
/** A policy that moves tags. */
export type TagBump = 'patch' | 'minor' | 'major';

export function isTagPolicy(value: string): value is TagPolicy {
  return (TAG_POLICIES as readonly string[]).includes(value);
}

/** The shared rules (contracts/shared/tag-version.ts), here too for the table tests of what a candidate is. */
export { compareVersions, isArtifactTag, parseTag, sameShape, type TagVersion };

/** `1.25`, `16`: a tag that moves with every release of its line; followed by digest unless a policy says otherwise. */
export function isFloating(version: TagVersion): boolean {
  return version.numbers.length < 3;
}

/** The bump between two versions of one shape (a counter or pre-release step is a patch). */
export function bumpOf(from: TagVersion, to: TagVersion): TagBump {
  if (compareDigits(from.numbers[0] ?? '0', to.numbers[0] ?? '0') !== 0) return 'major';
  if (compareDigits(from.numbers[1] ?? '0', to.numbers[1] ?? '0') !== 0) return 'minor';
  return 'patch';
}

const ALLOWS: Readonly<Record<TagBump, readonly TagBump[]>> = {
  patch: ['patch'],
  minor: ['patch', 'minor'],
  major: ['patch', 'minor', 'major'],
};

export interface TagRules {
  readonly policy: TagBump;
  /** True when the container's label names the policy: a floating tag then moves too (`1.25` → `1.26`). */
  readonly explicit: boolean;
  /** Pre-release candidates allowed (they are anyway when the running tag is one). */
  readonly prerelease: boolean;
  /** Candidates must match (`tag.include`). */
  readonly include?: (tag: string) => boolean;
  /** Candidates must not match (`tag.exclude`). */
  readonly exclude?: (tag: string) => boolean;
  /** Reads the version out of a tag (`tag.transform`); the tag itself when it does not apply. */
  readonly transform?: (tag: string) => string;
}

export interface Candidate {
  readonly tag: string;
  readonly kind: TagBump;
}

/** The running tag's version under the rules, or undefined when it follows its digest (alias, word, floating). */
export function currentVersion(current: string, rules: Pick<TagRules, 'explicit' | 'transform'>): TagVersion | undefined {
  if (isArtifactTag(current)) return undefined;
  const version = parseTag(rules.transform ? rules.transform(current) : current);
  if (!version || (isFloating(version) && !rules.explicit)) return undefined;
  return version;
}

/**
 * Every tag newer than `current` that the rules allow, highest first. The policy is applied to each
 * candidate before the maximum is taken, so `patch` finds `1.25.4` even when `2.0.0` exists.
 */
export function newerTags(current: string, tags: Iterable<string>, rules: TagRules): Candidate[] {
  const running = currentVersion(current, rules);
  if (!running) return [];
  const allowed = ALLOWS[rules.policy];
  const found: { version: TagVersion; kind: TagBump }[] = [];
  for (const tag of tags) {
    if (tag === current || isArtifactTag(tag)) continue;
    if (rules.include && !rules.include(tag)) continue;
    if (rules.exclude?.(tag)) continue;
    const parsed = parseTag(rules.transform ? rules.transform(tag) : tag);
    if (!parsed || !sameShape(parsed, running)) continue;
    if (parsed.pre && !rules.prerelease && !running.pre) continue;
    if (compareVersions(parsed, running) <= 0) continue;
    const kind = bumpOf(running, parsed);
    if (!allowed.includes(kind)) continue;
    found.push({ version: { ...parsed, tag }, kind });
  }
  found.sort((a, b) => compareVersions(b.version, a.version));
  return found.map(({ version, kind }) => ({ tag: version.tag, kind }));
}
