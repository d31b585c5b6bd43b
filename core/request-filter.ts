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
  const wildcard = wildcardMatcher(value);
  if (wildcard) return wildcard;
  return compiledMatcher(value);
}

function compiledMatcher(value: string): NameMatcher {
  let matches: NameMatcher;
  try {
    // re2js loads with the first pattern that needs it, not when the core's surface is imported.
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

/**
 * The commonest pattern, literals joined by `.*` (`myapp-.*`, `.*-db`, `web-.*-1`), matched as RE2 would match
 * it (anchored; `.` is any character but a newline) without compiling it: a leftmost walk of the literals,
 * linear in the name. Anything else (an escape, a class, a lazy `.*?`) goes to RE2. It spares the idle service
 * re2js (258 kB of source kept in the heap) for the pattern most configurations give (docs/performance.md#memory).
 */
function wildcardMatcher(value: string): NameMatcher | undefined {
  const parts = value.split('.*');
  if (parts.length < 2 || !parts.every(isPlainName)) return undefined;
  const first = parts[0] as string;
  const last = parts.at(-1) as string;
  const middle = parts.slice(1, -1);
  const fixed = first.length + last.length;
  let re2: NameMatcher | undefined;
  return (name) => {
    if (name === value) return true;
    // `.` does not match a newline: such a name (never a container's) is RE2's to judge.
    if (name.includes('\n')) return (re2 ??= compiledMatcher(value))(name);
    if (name.length < fixed || !name.startsWith(first) || !name.endsWith(last)) return false;
    const end = name.length - last.length;
    let at = first.length;
    for (const part of middle) {
      const found = name.indexOf(part, at);
      if (found < 0 || found + part.length > end) return false;
      at = found + part.length;
    }
    return true;
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
