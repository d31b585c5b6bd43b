// What a pattern sent by a client (a `container=` query value, a `tidewatch.tag.*` label) may cost
// before it is compiled (docs/http-api.md#pattern-limits). RE2 matches in linear time, but compiling
// is not free: `(?:ab|cd){1000}` two hundred times over took about a second of the event loop and a
// hundred megabytes of heap. The bounds are checked on the text, without compiling anything: its
// length, every counted repetition, and the size of the program it would expand to (each repetition
// multiplies what it repeats, nested ones multiply together).
import { createError } from './errors.js';

export interface PatternLimits {
  /** Characters of the pattern. */
  readonly maxLength: number;
  /** The largest `n` or `m` of a counted repetition `{n}`, `{n,}`, `{n,m}`. */
  readonly maxRepeat: number;
  /** The expanded size: one unit per literal, class or `.`, repetitions multiplying what they repeat. */
  readonly maxCost: number;
}

/**
 * Chosen so that the most expensive allowed pattern compiles in a few milliseconds on a loaded
 * two-core machine, well inside the 50 ms /livez must keep (figures in docs/http-api.md#pattern-limits).
 */
export const PATTERN_LIMITS: PatternLimits = Object.freeze({ maxLength: 256, maxRepeat: 100, maxCost: 500 });

export const patternErrors = Object.freeze({
  tooCostly: createError('TW_ERR_PATTERN_LIMIT', (what: string, why: string) => `${what} is too costly: ${why}`, 400),
});

/** Characters that make a value a pattern; a value without any is an exact name, compiled by nobody. */
const META = /[\\.+*?()|[\]{}^$]/;

export function isPlainName(value: string): boolean {
  return !META.test(value);
}

const REPEAT = /^\{(\d+)(,(\d*))?\}/;

/** A recursive-descent walk of RE2 syntax that only sizes things; invalid syntax is sized, not refused. */
class Sizer {
  readonly #text: string;
  #at = 0;
  maxRepeatSeen = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** alternation := sequence ('|' sequence)* */
  alternation(): number {
    let size = this.sequence();
    while (this.#text[this.#at] === '|') {
      this.#at++;
      size += this.sequence() + 1;
    }
    return size;
  }

  sequence(): number {
    let size = 0;
    while (this.#at < this.#text.length) {
      const c = this.#text[this.#at];
      if (c === '|' || c === ')') break;
      let atom = this.atom();
      atom = this.quantified(atom);
      size += atom;
    }
    return size;
  }

  quantified(atom: number): number {
    for (;;) {
      const c = this.#text[this.#at];
      if (c === '*' || c === '+' || c === '?') {
        this.#at++;
        if (this.#text[this.#at] === '?') this.#at++;
        atom += 1;
        continue;
      }
      const repeat = c === '{' ? REPEAT.exec(this.#text.slice(this.#at)) : null;
      if (!repeat) return atom;
      this.#at += repeat[0].length;
      if (this.#text[this.#at] === '?') this.#at++;
      const min = Number(repeat[1]);
      const max = repeat[2] === undefined ? min : repeat[3] === '' ? min + 1 : Number(repeat[3]);
      const times = Math.max(min, max, 1);
      this.maxRepeatSeen = Math.max(this.maxRepeatSeen, min, repeat[3] ? Number(repeat[3]) : 0);
      atom = atom * times + 1;
    }
  }

  atom(): number {
    const text = this.#text;
    const c = text[this.#at++];
    if (c === '(') {
      if (text[this.#at] === '?') {
        // (?flags) alone sets flags and matches nothing; (?:…), (?i:…), (?P<n>…), (?<n>…) group.
        const close = /^\?[a-zA-Z-]*\)/.exec(text.slice(this.#at));
        if (close) {
          this.#at += close[0].length;
          return 0;
        }
        const head = /^\?(?:P?<[^>]*>|[a-zA-Z-]*:)/.exec(text.slice(this.#at));
        if (head) this.#at += head[0].length;
      }
      const inner = this.alternation();
      if (text[this.#at] === ')') this.#at++;
      return inner + 1;
    }
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape();
    return 1;
  }

  charClass(): number {
    const text = this.#text;
    if (text[this.#at] === '^') this.#at++;
    if (text[this.#at] === ']') this.#at++;
    while (this.#at < text.length && text[this.#at] !== ']') {
      const posix = /^\[:\^?[a-z]+:\]/.exec(text.slice(this.#at));
      if (posix) this.#at += posix[0].length;
      else if (text[this.#at] === '\\') {
        this.#at++;
        this.escape();
      } else this.#at++;
    }
    this.#at++;
    return 1;
  }

  /** After a backslash: `\Q…\E` counts each literal; `\pL`, `\p{Greek}`, `\x{…}` are one unit. */
  escape(): number {
    const text = this.#text;
    const c = text[this.#at++];
    if (c === 'Q') {
      const end = text.indexOf('\\E', this.#at);
      const literal = end === -1 ? text.length - this.#at : end - this.#at;
      this.#at = end === -1 ? text.length : end + 2;
      return literal;
    }
    if ((c === 'p' || c === 'P' || c === 'x') && text[this.#at] === '{') {
      const end = text.indexOf('}', this.#at);
      this.#at = end === -1 ? text.length : end + 1;
    } else if (c === 'p' || c === 'P') this.#at++;
    else if (c === 'x') this.#at += 2;
    return 1;
  }

  get done(): boolean {
    return this.#at >= this.#text.length;
  }

  /** A stray `)` is a syntax error RE2 reports; skip it so the walk ends. */
  skip(): void {
    this.#at++;
  }
}

export interface PatternCost {
  readonly length: number;
  readonly maxRepeat: number;
  /** The expanded size, the unit of PatternLimits.maxCost and of the compiled-pattern cache. */
  readonly cost: number;
}

/** What a pattern would cost to compile, measured on its text alone (linear in its length). */
export function patternCost(pattern: string): PatternCost {
  if (isPlainName(pattern)) return { length: pattern.length, maxRepeat: 0, cost: pattern.length };
  const sizer = new Sizer(pattern);
  let cost = sizer.alternation();
  while (!sizer.done) {
    sizer.skip();
    cost += sizer.alternation();
  }
  return { length: pattern.length, maxRepeat: sizer.maxRepeatSeen, cost };
}

/** Why a pattern is beyond the limits, or undefined when it is within them. */
export function patternBoundsViolation(pattern: string, limits: PatternLimits = PATTERN_LIMITS): string | undefined {
  if (pattern.length > limits.maxLength) return `${pattern.length} characters (at most ${limits.maxLength})`;
  const { maxRepeat, cost } = patternCost(pattern);
  if (maxRepeat > limits.maxRepeat) return `a repetition count of ${maxRepeat} (at most ${limits.maxRepeat})`;
  if (cost > limits.maxCost) return `it expands to ${cost} units (at most ${limits.maxCost}; each repetition multiplies what it repeats)`;
  return undefined;
}

/**
 * Throws TW_ERR_PATTERN_LIMIT (400) for a pattern beyond the limits; `what` names it in the message
 * (`container pattern`, `label tidewatch.tag.include`). Call it on every pattern a client or a
 * container label supplies, before the pattern reaches RE2.
 */
export function assertPatternBounds(pattern: string, what = 'pattern', limits: PatternLimits = PATTERN_LIMITS): void {
  const why = patternBoundsViolation(pattern, limits);
  if (why !== undefined) throw patternErrors.tooCostly(what, why);
}
