// The request filters of /v1/check and /v1/update (docs/http-api-contract.md §4.1, docs/interface.md §5), applied by the core
// after every plugin's `select` tap, so that every runtime's targets are filtered the same way.
import { createRequire } from 'node:module';
import { parseImageReference, repositoryName, tryParseImageReference } from './image-reference.js';
import { isPlainName, patternCost, PATTERN_LIMITS } from './pattern-bounds.js';
import type { RunFilters, Target } from './types.js';
import { WeightedCache } from './weighted-cache.js';

export type NameMatcher = (name: string) => boolean;

/**
 * A container name matcher: RE2 (linear time, so no pattern can hang the service), anchored at both
 * ends; a value that is not a valid RE2 pattern matches the exact name. Compiled matchers are cached
 * by what they cost (core/pattern-bounds.ts), not by count: the cache never holds more than
 * MATCHER_CACHE_BUDGET units, however many distinct patterns clients send (docs/http-api.md#pattern-limits).
 */
export const MATCHER_CACHE_BUDGET = 40 * PATTERN_LIMITS.maxCost;

/** Each entry's own keep (its remembered answers), so that even cheap patterns count. */
const ENTRY_OVERHEAD = 50;

const matchers = new WeightedCache<string, NameMatcher>(MATCHER_CACHE_BUDGET);

export function nameMatcher(pattern: string): NameMatcher {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = compileNameMatcher(pattern);
    // Selection asks for the same few patterns every run (and every batch of a run).
    matchers.set(pattern, matcher, patternCost(pattern).cost + ENTRY_OVERHEAD);
  }
  return matcher;
}

/**
 * `web.1` as a pattern matching that name only (the request filters read names as anchored RE2 patterns,
 * so a dot must not match anything): how a plugin targets one container by name.
 */
export function exactNamePattern(name: string): string {
  return name.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/** What the matcher cache holds now, in cost units (for tests and docs/performance.md). */
export function matcherCacheWeight(): number {
  return matchers.weight;
}

function compileNameMatcher(pattern: string): NameMatcher {
  const value = pattern.replace(/^\//, '');
  // A value without a metacharacter is its own exact name: nothing to compile.
  if (isPlainName(value)) return (name) => name === value;
  let matches: NameMatcher;
  try {
    // re2js loads with the first pattern, not when the core's surface is imported.
    const { RE2JS } = createRequire(import.meta.url)('re2js') as typeof import('re2js');
    const re = RE2JS.compile(value);
    matches = (name) => name === value || re.matcher(name).matches();
  } catch {
    return (name) => name === value;
  }
  // RE2 in JavaScript is linear but not fast, and a fleet's names repeat run after run: each name's
  // answer is remembered for the matcher's life (bounded; docs/performance.md).
  const answers = new Map<string, boolean>();
  return (name) => {
    let answer = answers.get(name);
    if (answer === undefined) {
      answer = matches(name);
      if (answers.size >= 10_000) answers.clear();
      answers.set(name, answer);
    }
    return answer;
  };
}

/** `image=nginx` matches every tag of nginx; `image=nginx:1.25` only that tag. */
export function imageMatcher(filter: string): (image: string) => boolean {
  const wanted = tryParseImageReference(filter);
  if (!wanted) return (image) => image === filter;
  const untagged = parseImageReference(filter, { defaultTag: false }).tag === undefined;
  return (image) => {
    const actual = tryParseImageReference(image);
    if (!actual) return image === filter;
    if (repositoryName(actual) !== repositoryName(wanted)) return false;
    return untagged || actual.tag === wanted.tag;
  };
}

/** Splits repeated and comma-separated values into one clean list. */
export function splitFilterValues(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((value) => value.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

export function isTargeted(filters: RunFilters): boolean {
  return filters.images.length > 0 || filters.containers.length > 0 || (filters.hosts?.length ?? 0) > 0;
}

/** Keeps the targets matching every given filter kind (any value of a kind may match). */
export function applyRequestFilters(targets: Target[], filters: RunFilters): Target[] {
  if (!isTargeted(filters)) return targets;
  const names = filters.containers.map(nameMatcher);
  const images = filters.images.map(imageMatcher);
  // Engines by their exact configured name: a name is not a pattern, and `web` on two engines is told
  // apart by its host (docs/hosts.md).
  const hosts = new Set(filters.hosts ?? []);
  return targets.filter(
    (target) =>
      (names.length === 0 || names.some((match) => match(target.name))) &&
      (images.length === 0 || images.some((match) => match(target.image))) &&
      (hosts.size === 0 || (target.host !== undefined && hosts.has(target.host))),
  );
}
