// The version a tag names, and how two versions compare (docs/tags.md): the tag policy's rules, pure, no I/O.
// Shared, not the registry plugin's alone: the release notes of an update are chosen and ordered by the same
// rules (docs/versions.md#release-notes), and which tags name artifacts rather than images matters to the tag
// policies and the webhooks alike. Not the core's: the core never orders versions (contracts/shared,
// CONTRIBUTING.md#layout). A tag's shape is a prefix, an optional `v`, 1 to 4 numeric segments and a suffix;
// everything compares as numbers, never as strings.
//
// Not the `semver` package: Docker tags are not SemVer (1, 2 or 4 segments, build counters in the suffix,
// variants such as `-alpine` that must never change, pre-release words in any position).

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
export function compareDigits(a: string, b: string): number {
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

/**
 * Tags that name signatures, attestations and SBOMs (cosign's `sha256-<hex>…`, ORAS's, any `*.sig`, `*.att`,
 * `*.sbom`), never an image to run: no tag policy offers one (docs/tags.md), no webhook acts on one
 * (docs/webhooks.md).
 */
const ARTIFACT_TAG = /^sha256-[0-9a-f]{16,}|\.(?:sig|att|sbom)$/i;

export function isArtifactTag(tag: string): boolean {
  return ARTIFACT_TAG.test(tag);
}
