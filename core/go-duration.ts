// Duration syntax. Tidewatch is a Watchtower replacement, so every duration a user writes must mean what it
// meant to Watchtower's Go code: `parseGoDuration` follows Go's `time.ParseDuration` step by step (including
// its int64 nanosecond overflow checks and its float handling of fractions) and `formatGoDuration` follows
// `time.Duration.String()`. Values are handed around in milliseconds (a JS number, possibly fractional for
// sub-millisecond durations) because that is what timers and fastify take. It lives in core because the
// server (options), the HTTP API (`timeout` queries) and the cooldown gate (its label) must agree.
import { TidewatchError } from './errors.js';

const NS_PER_MS = 1_000_000n;
// Go accumulates in a uint64 and allows up to 1<<63 (so that -1<<63, the smallest Duration, parses).
const LIMIT = 1n << 63n;

/** Nanoseconds per unit, as in Go's `unitMap`. Both spellings of micro (U+00B5 and U+03BC) are accepted. */
const UNITS: ReadonlyMap<string, bigint> = new Map([
  ['ns', 1n],
  ['us', 1_000n],
  ['\u00b5s', 1_000n],
  ['\u03bcs', 1_000n],
  ['ms', 1_000_000n],
  ['s', 1_000_000_000n],
  ['m', 60_000_000_000n],
  ['h', 3_600_000_000_000n],
]);

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Go's error text, so a message reads the same as the Watchtower error a user may have searched for. */
function invalid(orig: string): Error {
  return new TidewatchError('TW_ERR_DURATION', `time: invalid duration ${JSON.stringify(orig)}`, 400);
}

/**
 * Parses a Go duration string (`300ms`, `-1.5h`, `2h45m`, `0`) into milliseconds.
 * Throws an Error with Go's message for anything `time.ParseDuration` rejects.
 */
export function parseGoDuration(text: string): number {
  return Number(parseGoDurationNs(text)) / 1e6;
}

/** Same as `parseGoDuration`, exact, in nanoseconds. */
export function parseGoDurationNs(text: string): bigint {
  const orig = text;
  let s = text;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  // Special case: a lone zero needs no unit.
  if (s === '0') return 0n;
  if (s === '') throw invalid(orig);

  let total = 0n;
  while (s !== '') {
    // The next character must be [0-9.].
    if (!(s[0] === '.' || isDigit(s[0]))) throw invalid(orig);

    // Integer part: Go's leadingInt fails on int64 overflow.
    let i = 0;
    let v = 0n;
    while (isDigit(s[i])) {
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > LIMIT) throw invalid(orig);
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);

    // Fraction: Go's leadingFraction keeps consuming digits but stops accumulating before overflow.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(s[j])) {
        if (!overflow) {
          const next = f * 10n + BigInt(s.charCodeAt(j) - 48);
          if (next > LIMIT) {
            overflow = true;
          } else {
            f = next;
            scale *= 10;
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) throw invalid(orig); // no digits, e.g. ".s" or "-.s"

    // Unit: everything up to the next [0-9.].
    let k = 0;
    while (k < s.length && !(s[k] === '.' || isDigit(s[k]))) k++;
    if (k === 0) throw new TidewatchError('TW_ERR_DURATION', `time: missing unit in duration ${JSON.stringify(orig)}`, 400);
    const u = s.slice(0, k);
    s = s.slice(k);
    const unit = UNITS.get(u);
    if (unit === undefined) {
      throw new TidewatchError('TW_ERR_DURATION', `time: unknown unit ${JSON.stringify(u)} in duration ${JSON.stringify(orig)}`, 400);
    }

    if (v > LIMIT / unit) throw invalid(orig);
    v *= unit;
    if (f > 0n) {
      // Go: v += int64(float64(f) * (float64(unit) / scale)); the float rounding is part of the contract.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > LIMIT) throw invalid(orig);
    }
    total += v;
    if (total > LIMIT) throw invalid(orig);
  }
  if (neg) return -total;
  if (total > LIMIT - 1n) throw invalid(orig);
  return total;
}

/** Go's fmtFrac: the fraction digits of v/10^prec without trailing zeros (and no point when they are all zero). */
function fracPart(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let printed = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    printed ||= digit !== 0n;
    if (printed) digits = digit.toString() + digits;
    v /= 10n;
  }
  return [printed ? `.${digits}` : '', v];
}

/** Formats milliseconds as Go's `Duration.String()` does: `1h30m0s`, `1.5s`, `300ms`, `2µs`, `0s`. */
export function formatGoDuration(ms: number): string {
  return formatGoDurationNs(BigInt(Math.round(ms * 1e6)));
}

export function formatGoDurationNs(ns: bigint): string {
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    // Under a second Go switches to the largest unit that keeps an integer part: ns, µs or ms.
    if (u === 0n) return '0s';
    let prec: number;
    let unit: string;
    if (u < 1_000n) {
      prec = 0;
      unit = 'ns';
    } else if (u < NS_PER_MS) {
      prec = 3;
      unit = '\u00b5s';
    } else {
      prec = 6;
      unit = 'ms';
    }
    const [frac, whole] = fracPart(u, prec);
    out = `${whole}${frac}${unit}`;
  } else {
    const [frac, secondsTotal] = fracPart(u, 9);
    u = secondsTotal;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/**
 * A duration as Watchtower read it from the environment: digits only (optionally signed) mean seconds
 * (`WATCHTOWER_TIMEOUT=30` is 30s, `WATCHTOWER_POLL_INTERVAL=300` is 5m); anything else is a Go duration.
 */
export function parseEnvDuration(text: string): number {
  const t = text.trim();
  if (/^[+-]?\d+$/.test(t)) return Number(t) * 1000;
  return parseGoDuration(t);
}
