// The request filters of /v1/check and /v1/update (docs/http-api-contract.md §4.1, docs/interface.md §5), applied by the core
// after every plugin's `select` tap, so that every runtime's targets are filtered the same way.
import { createRequire } from 'node:module';
import { parseImageReference, repositoryName, tryParseImageReference } from './image-reference.js';
import type { RunFilters, Target } from './types.js';

export type NameMatcher = (name: string) => boolean;

/**
 * A container name matcher: RE2 (linear time, so no pattern can hang the service), anchored at both
 * ends; a value that is not a valid RE2 pattern matches the exact name.
 */
const matchers = new Map<string, NameMatcher>();

export function nameMatcher(pattern: string): NameMatcher {
  let matcher = matchers.get(pattern);
  if (!matcher) {
    matcher = compileNameMatcher(pattern);
    // Selection asks for the same few patterns every run (and every batch of a run).
    if (matchers.size >= 1_000) matchers.clear();
    matchers.set(pattern, matcher);
  }
  return matcher;
}

function compileNameMatcher(pattern: string): NameMatcher {
  const value = pattern.replace(/^\//, '');
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
  return filters.images.length > 0 || filters.containers.length > 0;
}

/** Keeps the targets matching every given filter kind (any value of a kind may match). */
export function applyRequestFilters(targets: Target[], filters: RunFilters): Target[] {
  if (!isTargeted(filters)) return targets;
  const names = filters.containers.map(nameMatcher);
  const images = filters.images.map(imageMatcher);
  return targets.filter(
    (target) =>
      (names.length === 0 || names.some((match) => match(target.name))) &&
      (images.length === 0 || images.some((match) => match(target.image))),
  );
}
