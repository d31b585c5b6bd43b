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
import { isArtifactTag } from '../../../core/index.js';

export const TAG_POLICIES = ['digest', 'patch', 'minor', 'major', 'pin'] as const;
export type TagPolicy = (typeof TAG_POLICIES)[number];
/** A policy that moves tags. */
export type TagBump = 'patch' | 'minor' | 'major';

export function isTagPolicy(value: string): value is TagPolicy {
  return (TAG_POLICIES as readonly string[]).includes(value);
}

export interface TagVersion {
  readonly tag: string;
  readonly prefix: string;
  readonly v: boolean;
  /** The numeric segments, as digit strings (compared as numbers of any length). */
  readonly numbers: readonly string[];
  /** The suffix without its pre-release part, each run of digits read as `#`. */
  readonly template: string;
  /** The digit runs of that suffix: build counters (`-ls258`, `-r1`), compared as numbers. */
  readonly counters: readonly string[];
  /** The pre-release part (`-rc.1`, `-beta2`): its rank (alpha < beta < rc) and numbers. */
  readonly pre?: { readonly rank: number; readonly numbers: readonly string[] };
}

/** The core's rule, here too for the table tests of what a candidate is. */
export { isArtifactTag };

// prefix (ending with a separator, or empty), v, 1-4 dot-separated numbers, suffix. The prefix holds no digit.
const SHAPE = /^([^0-9]*?)(v?)(\d+(?:\.\d+){0,3})(.*)$/;
const SEPARATOR = /[-_.+~]/;
const PRE_WORDS: Readonly<Record<string, number>> = {
  dev: 0, snapshot: 0, nightly: 0, canary: 0, next: 0,
  alpha: 1, beta: 2, pre: 3, preview: 3, rc: 4,
};
// A pre-release word with its numbers, between separators (or the suffix's ends): `-rc.1`, `-beta2`, `_rc1`.
const PRE = /(^|[-_.+~])(dev|snapshot|nightly|canary|next|alpha|beta|preview|pre|rc)([-_.]?\d+(?:\.\d+)*)?(?=$|[-_.+~])/i;
const DIGITS = /\d+/g;

/** The version a tag names, or undefined for aliases, words, commit hashes and anything else. */
export function parseTag(tag: string): TagVersion | undefined {
  const m = SHAPE.exec(tag);
  if (!m) return undefined;
  let prefix = m[1] ?? '';
  let v = m[2] === 'v';
  // `dev1`: the `v` belongs to a word, and a word glued to the number is no version.
  if (v && prefix !== '' && !SEPARATOR.test(prefix.slice(-1))) {
    prefix += 'v';
    v = false;
  }
  if (prefix !== '' && !SEPARATOR.test(prefix.slice(-1))) return undefined;
  const suffix = m[4] ?? '';
  // A suffix starts with a separator (`1.2.3-alpine`, `1.0+build`); `.5` would be a fifth segment.
  if (suffix !== '' && (!SEPARATOR.test(suffix[0] ?? '') || /^\.\d/.test(suffix))) return undefined;
  const numbers = (m[3] ?? '').split('.');
  const pre = PRE.exec(suffix);
  const base = pre ? suffix.slice(0, pre.index) + suffix.slice(pre.index + pre[0].length) : suffix;
  return {
    tag,
    prefix,
    v,
    numbers,
    template: base.replace(DIGITS, '#'),
    counters: base.match(DIGITS) ?? [],
    ...(pre ? { pre: { rank: PRE_WORDS[(pre[2] ?? '').toLowerCase()] ?? 0, numbers: (pre[3] ?? '').match(DIGITS) ?? [] } } : {}),
  };
}

/** Two digit strings as numbers, whatever their length (`010` = `10` < `9999999999999999999`). */
function compareDigits(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareLists(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const c = compareDigits(a[i] ?? '0', b[i] ?? '0');
    if (c !== 0) return c;
  }
  return 0;
}

/** Orders two versions of one shape: the numbers, then a release above its pre-releases, then build counters. */
export function compareVersions(a: TagVersion, b: TagVersion): number {
  const numbers = compareLists(a.numbers, b.numbers);
  if (numbers !== 0) return numbers;
  if (a.pre || b.pre) {
    if (!a.pre) return 1;
    if (!b.pre) return -1;
    if (a.pre.rank !== b.pre.rank) return a.pre.rank - b.pre.rank;
    const pre = compareLists(a.pre.numbers, b.pre.numbers);
    if (pre !== 0) return pre;
  }
  return compareLists(a.counters, b.counters);
}

/** Same prefix, `v`, segment count and suffix template: the only tags a version may move to. */
export function sameShape(a: TagVersion, b: TagVersion): boolean {
  return a.prefix === b.prefix && a.v === b.v && a.numbers.length === b.numbers.length && a.template === b.template;
}

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
