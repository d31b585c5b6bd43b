// The cost bounds of `container=` patterns on every route that takes them (docs/http-api.md#pattern-limits):
// each value within the core's PATTERN_LIMITS, all of a request's patterns together within
// REQUEST_PATTERN_BUDGET, refused with 400 before anything is compiled. Accepted patterns are then
// compiled one per turn of the event loop, so that a probe or another request waits for at most one
// compile, never for a whole request's worth.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isPlainName, nameMatcher, patternBoundsViolation, patternCost, patternErrors, PATTERN_LIMITS, type RunFilters } from '../../core/index.js';

/** What all the `container=` patterns of one request may cost together, in the core's cost units. */
export const REQUEST_PATTERN_BUDGET = 8 * PATTERN_LIMITS.maxCost;

/** Throws TW_ERR_PATTERN_LIMIT (400) when a value, or all of them together, cost too much. */
export function checkContainerPatterns(values: readonly string[]): void {
  let total = 0;
  for (const [index, value] of values.entries()) {
    const why = patternBoundsViolation(value);
    if (why !== undefined) throw patternErrors.tooCostly(`container pattern ${index + 1}`, why);
    if (!isPlainName(value)) total += patternCost(value).cost;
  }
  if (total > REQUEST_PATTERN_BUDGET) {
    throw patternErrors.tooCostly('the request\'s container patterns', `together they expand to ${total} units (at most ${REQUEST_PATTERN_BUDGET})`);
  }
}

/**
 * The engine's first compile in a process costs tens of milliseconds whatever the pattern (loading
 * it, its Unicode tables, its first JIT): that cost is paid once, by a small pattern, in a turn of
 * its own, before the first client pattern.
 */
const WARM_UP_PATTERN = '(?i)^tidewatch-warm-up-[\\pL\\pN_.-]{1,8}(?:a|b)*$';
let warmed = false;

/** Compiles the request's patterns into the core's cache ahead of the run, yielding between them. */
export async function compileContainerPatterns(filters: RunFilters): Promise<void> {
  for (const value of filters.containers) {
    if (isPlainName(value)) continue;
    if (!warmed) {
      warmed = true;
      await nextTurn();
      nameMatcher(WARM_UP_PATTERN)('tidewatch');
    }
    await nextTurn();
    nameMatcher(value);
  }
}
