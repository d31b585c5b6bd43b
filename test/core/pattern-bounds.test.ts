// The cost bounds of client-sent patterns (docs/http-api.md#pattern-limits): measured on the text, the
// issue's 3 KB reproduction and nested repetitions refused, ordinary patterns allowed, and the
// compiled-pattern cache bounded by weight however many distinct patterns arrive.
import t from 'tap';
import { isTidewatchError, patternBoundsViolation, patternCost, PATTERN_LIMITS } from '../../core/index.js';
import { assertPatternBounds } from '../../core/pattern-bounds.js';
import { MATCHER_CACHE_BUDGET, matcherCacheWeight, nameMatcher } from '../../core/request-filter.js';
import { WeightedCache } from '../../core/weighted-cache.js';

t.test('ordinary names and patterns are within the limits', async (t) => {
  for (const ok of ['web', 'web-.*', '^/?(api|db)-[0-9]+$', '(?i)web', 'x{100}', '\\pL{2,10}', '[[:alpha:]]+', '\\Qa.b\\E', 'a(b']) {
    t.equal(patternBoundsViolation(ok), undefined, ok);
  }
  t.equal(patternCost('web').cost, 3, 'a plain name costs its length');
  t.equal(patternCost('a{10}').maxRepeat, 10);
  t.equal(patternCost('(?:ab){10}').cost, (2 + 1) * 10 + 1, 'a repetition multiplies what it repeats');
  t.ok(patternCost('(?:(?:a{10}){10}){10}').cost > 1000, 'nested repetitions multiply together');
});

t.test('the issue\'s reproduction and its cousins are refused, each with a reason', async (t) => {
  const repro = `fz1${'(?:ab|cd){1000}'.repeat(200)}`;
  t.match(patternBoundsViolation(repro), /3003 characters \(at most 256\)/);
  t.match(patternBoundsViolation('(?:ab|cd){1000}'), /repetition count of 1000 \(at most 100\)/);
  t.match(patternBoundsViolation('a{5,101}'), /repetition count of 101/);
  t.match(patternBoundsViolation('(?:(?:\\pL{10}){10}){11}'), /expands to \d+ units \(at most 500/);
  t.match(patternBoundsViolation('(?:ab|cd){100}'.repeat(4)), /expands to/);
  t.match(patternBoundsViolation('\\Q' + 'x'.repeat(300)), /characters/);
  let thrown: unknown;
  try {
    assertPatternBounds('a{1000}', 'label tidewatch.tag.include');
  } catch (err) {
    thrown = err;
  }
  t.ok(isTidewatchError(thrown));
  t.match(thrown, { code: 'TW_ERR_PATTERN_LIMIT', statusCode: 400, message: /^label tidewatch.tag.include is too costly: a repetition count of 1000/ });
  t.doesNotThrow(() => assertPatternBounds('web-.*'));
});

t.test('the worst allowed pattern compiles in milliseconds, not a second', async (t) => {
  const worst = '\\pL{100}'.repeat(4);
  t.equal(patternBoundsViolation(worst), undefined, 'allowed');
  nameMatcher('warm-up-.*')('x');
  const started = performance.now();
  nameMatcher(`w0${worst}`)('web');
  const ms = performance.now() - started;
  t.ok(ms < 250, `compiled in ${ms.toFixed(1)} ms`);
});

t.test('the compiled-pattern cache is bounded by weight, not count', async (t) => {
  for (let i = 0; i < 200; i++) nameMatcher(`c${i}-(?:ab|cd){20}x{50}`)('web');
  t.ok(matcherCacheWeight() <= MATCHER_CACHE_BUDGET, `${matcherCacheWeight()} <= ${MATCHER_CACHE_BUDGET}`);
  t.ok(matcherCacheWeight() > MATCHER_CACHE_BUDGET / 2, 'and used');
  t.equal(MATCHER_CACHE_BUDGET, 40 * PATTERN_LIMITS.maxCost);

  const cache = new WeightedCache<string, number>(10);
  cache.set('a', 1, 4);
  cache.set('b', 2, 4);
  t.equal(cache.get('a'), 1, 'a is now the most recently used');
  cache.set('c', 3, 4);
  t.equal(cache.get('b'), undefined, 'the least recently used made room');
  t.equal(cache.get('a'), 1);
  t.equal(cache.weight, 8);
  cache.set('huge', 4, 11);
  t.equal(cache.get('huge'), undefined, 'an entry heavier than the budget is not kept');
  t.equal(cache.size, 2);
});
