// Value parsers for option declarations. Each turns one raw string (a flag's value, a variable, a
// config-file value) into the typed value, or throws a plain Error whose message says what is accepted;
// the server turns that into a one-line configuration error naming the option (docs/configuration.md).
// They live in core because every plugin declares its options with them.
import { TidewatchError } from './errors.js';
import { resolve as resolvePath } from 'node:path';
import { parseEnvDuration } from './go-duration.js';

/** Where a raw value came from, and the directory relative paths are resolved against. */
export interface ParseContext {
  readonly origin: 'flag' | 'env' | 'file';
  readonly cwd: string;
}

export type Parser<T> = (raw: string, ctx: ParseContext) => T;

const TRUE_VALUES: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_VALUES: ReadonlySet<string> = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** What the error message says is accepted. */
export const GO_BOOL_ACCEPTED = 'expected a boolean: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false or False';

/** True when `text` is one of the twelve spellings Go's strconv.ParseBool accepts. */
export function isGoBool(text: string): boolean {
  return TRUE_VALUES.has(text) || FALSE_VALUES.has(text);
}

/**
 * Go's strconv.ParseBool, exactly: Watchtower users' environments hold `1`, `t` or `TRUE`, and anything
 * outside this set must be a startup error rather than a guess (`yes`, `on`, `TrUe` all throw).
 */
export function parseGoBool(text: string): boolean {
  if (TRUE_VALUES.has(text)) return true;
  if (FALSE_VALUES.has(text)) return false;
  throw new TidewatchError('TW_ERR_INVALID_VALUE', GO_BOOL_ACCEPTED, 400);
}

export const parseBoolean: Parser<boolean> = (raw) => parseGoBool(raw);

/** Strings are kept as given; only surrounding whitespace is dropped. */
export const parseString: Parser<string> = (raw) => raw.trim();

/** A file path, made absolute against the working directory the configuration was resolved in. */
export const parsePath: Parser<string> = (raw, ctx) => {
  const t = raw.trim();
  return t === '' ? '' : resolvePath(ctx.cwd, t);
};

const DURATION_ACCEPTED = 'expected a Go duration such as 30s, 5m or 1h30m (digits alone are seconds)';

/**
 * Go durations, in milliseconds. Digits alone mean seconds from every source: variables need it
 * (docs/interface.md#2-configuration-rules), and Watchtower's `--interval` flag was an integer number of
 * seconds, so `--interval 300` from a Watchtower compose file keeps working.
 */
export function durationParser(opts: { positive?: boolean; zeroMeans?: number } = {}): Parser<number> {
  return (raw) => {
    let ms: number;
    try {
      ms = parseEnvDuration(raw);
    } catch {
      throw new TidewatchError('TW_ERR_INVALID_VALUE', DURATION_ACCEPTED, 400);
    }
    if (ms < 0) throw new TidewatchError('TW_ERR_INVALID_VALUE', `${DURATION_ACCEPTED}; negative values are not allowed`, 400);
    if (ms === 0 && opts.zeroMeans !== undefined) return opts.zeroMeans;
    if (ms === 0 && opts.positive === true) throw new TidewatchError('TW_ERR_INVALID_VALUE', `${DURATION_ACCEPTED}, greater than zero`, 400);
    return ms;
  };
}

/** Base-10 integers, optionally signed, within [min, max]. */
export function integerParser(min: number, max: number = Number.MAX_SAFE_INTEGER): Parser<number> {
  const accepted =
    max === Number.MAX_SAFE_INTEGER ? `expected an integer >= ${min}` : `expected an integer from ${min} to ${max}`;
  return (raw) => {
    const t = raw.trim();
    if (!/^[+-]?\d+$/.test(t)) throw new TidewatchError('TW_ERR_INVALID_VALUE', accepted, 400);
    const n = Number(t);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new TidewatchError('TW_ERR_INVALID_VALUE', accepted, 400);
    return n;
  };
}

/** Splits on commas and/or whitespace (Watchtower's ListCommaOrSpace), dropping empty items. */
export function splitCommaOrSpace(raw: string): string[] {
  return raw.split(/[\s,]+/).filter((s) => s !== '');
}

/** Splits on commas only (Watchtower's ListCommaOnly, for `key=value` pairs whose values may hold spaces). */
export function splitComma(raw: string): string[] {
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * Notification URLs: separated by whitespace, or by commas that start a new `scheme://` URL; commas inside
 * a URL (query strings) are kept, as Watchtower's ListNotificationURLs does.
 */
export function splitUrls(raw: string): string[] {
  return raw
    .split(/\s+|,(?=\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/)/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export const LIST_SPLITTERS = Object.freeze({
  'comma-or-space': splitCommaOrSpace,
  comma: splitComma,
  urls: splitUrls,
});
export type ListSplit = keyof typeof LIST_SPLITTERS;

export function listParser(split: (raw: string) => string[], item: (value: string) => string = (v) => v): Parser<string[]> {
  return (raw) => split(raw).map(item);
}

/** Case-insensitive choice among `values`; `aliases` maps other accepted spellings (lower-case) to a value. */
export function enumParser<T extends string>(values: readonly T[], aliases: Readonly<Record<string, T>> = {}): Parser<T> {
  return (raw) => {
    const t = raw.trim().toLowerCase();
    const hit = values.find((v) => v.toLowerCase() === t) ?? aliases[t];
    if (hit === undefined) throw new TidewatchError('TW_ERR_INVALID_VALUE', `expected one of ${values.filter((v) => v !== '').join(', ')}`, 400);
    return hit;
  };
}

/** Container names as Docker reports them carry a leading `/`; users write them without. */
export function stripSlash(name: string): string {
  return name.replace(/^\/+/, '');
}

/** The fork's bounds on `key=value` label filters (docs/watchtower-fork.md#selection-filters). */
const MAX_LABEL_PAIRS = 100;
const MAX_LABEL_PAIR_BYTES = 4096;

/**
 * `--enable-containers-by-label` / `--disable-containers-by-label`: comma-separated `key=value` pairs
 * (`key=` tests presence). A malformed pair is refused rather than dropped: a filter that silently lost a
 * pair would widen (or narrow) what is updated.
 */
export function parseLabelPairs(raw: string): string[] {
  const pairs = splitComma(raw);
  if (pairs.length > MAX_LABEL_PAIRS) {
    throw new TidewatchError('TW_ERR_INVALID_VALUE', `at most ${MAX_LABEL_PAIRS} key=value pairs`, 400);
  }
  return pairs.map((pair) => {
    const eq = pair.indexOf('=');
    if (eq === -1) throw new TidewatchError('TW_ERR_INVALID_VALUE', 'expected key=value pairs (a pair has no "=")', 400);
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (key === '') throw new TidewatchError('TW_ERR_INVALID_VALUE', 'expected key=value pairs (a pair has an empty key)', 400);
    if (Buffer.byteLength(key) + Buffer.byteLength(value) > MAX_LABEL_PAIR_BYTES) {
      throw new TidewatchError('TW_ERR_INVALID_VALUE', `a key=value pair is longer than ${MAX_LABEL_PAIR_BYTES} bytes`, 400);
    }
    return `${key}=${value}`;
  });
}
