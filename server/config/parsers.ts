// Value parsers used by the option table. Each returns a function `(raw, ctx) => value` that throws a plain
// Error whose message says what is accepted; resolve.ts turns that into a one-line ConfigError naming the
// option, the source and the value (or `<redacted>`).

import { isIP } from 'node:net';
import { resolve as resolvePath } from 'node:path';

import { parseGoBool } from './go-bool.js';
import { parseCooldownDuration, parseEnvDuration } from '../../core/go-duration.js';
import { HTTP_API_ENDPOINTS, type HttpApiEndpoint, type ParseContext } from './types.js';

export type Parser<T> = (raw: string, ctx: ParseContext) => T;

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
 * Go durations from every source. Digits alone mean seconds from every source too: decisions §2 requires it
 * for variables, and Watchtower's `--interval` flag was an integer number of seconds, so `--interval 300`
 * from a Watchtower compose file must keep working.
 */
export function durationParser(opts: { positive?: boolean; zeroMeans?: number } = {}): Parser<number> {
  return (raw) => {
    let ms: number;
    try {
      ms = parseEnvDuration(raw);
    } catch {
      throw new Error(DURATION_ACCEPTED);
    }
    if (ms < 0) throw new Error(`${DURATION_ACCEPTED}; negative values are not allowed`);
    if (ms === 0 && opts.zeroMeans !== undefined) return opts.zeroMeans;
    if (ms === 0 && opts.positive === true) throw new Error(`${DURATION_ACCEPTED}, greater than zero`);
    return ms;
  };
}

export const parseCooldown: Parser<number> = (raw) => {
  try {
    return parseCooldownDuration(raw);
  } catch {
    throw new Error('expected a delay such as 12h, 3d12h, 2w or 1M (units s m h d w M, M = 30 days), or 0 for off');
  }
};

/** Base-10 integers, optionally signed, within [min, max]. */
export function integerParser(min: number, max: number = Number.MAX_SAFE_INTEGER): Parser<number> {
  const accepted =
    max === Number.MAX_SAFE_INTEGER ? `expected an integer >= ${min}` : `expected an integer from ${min} to ${max}`;
  return (raw) => {
    const t = raw.trim();
    if (!/^[+-]?\d+$/.test(t)) throw new Error(accepted);
    const n = Number(t);
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new Error(accepted);
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

export function listParser(
  split: (raw: string) => string[],
  item: (value: string) => string = (v) => v,
): Parser<string[]> {
  return (raw) => split(raw).map(item);
}

/** Case-insensitive choice among `values`; `aliases` maps other accepted spellings (lower-case) to a value. */
export function enumParser<T extends string>(
  values: readonly T[],
  aliases: Readonly<Record<string, T>> = {},
): Parser<T> {
  return (raw) => {
    const t = raw.trim().toLowerCase();
    const hit = values.find((v) => v.toLowerCase() === t) ?? aliases[t];
    if (hit === undefined) throw new Error(`expected one of ${values.filter((v) => v !== '').join(', ')}`);
    return hit;
  };
}

const ENDPOINTS_ACCEPTED = `expected a comma- or space-separated list of ${HTTP_API_ENDPOINTS.join(', ')}, or all alone; empty turns the API off`;

/**
 * `--http-api-endpoints` (decisions §3): comma or space separated, case-insensitive, `all` only alone, unknown
 * names refused. The result is sorted and unique with `all` expanded, so consumers test membership only.
 */
export const parseEndpoints: Parser<HttpApiEndpoint[]> = (raw) => {
  const names = splitCommaOrSpace(raw.toLowerCase());
  if (names.includes('all')) {
    if (names.some((n) => n !== 'all')) throw new Error(`"all" must be used alone; ${ENDPOINTS_ACCEPTED}`);
    return [...HTTP_API_ENDPOINTS];
  }
  const known: ReadonlySet<string> = new Set(HTTP_API_ENDPOINTS);
  for (const n of names) {
    if (!known.has(n)) throw new Error(`unknown endpoint ${JSON.stringify(n)}; ${ENDPOINTS_ACCEPTED}`);
  }
  return [...new Set(names as HttpApiEndpoint[])].sort();
};

/** A listen address: an IPv4 or IPv6 literal (brackets around IPv6 allowed); empty means all interfaces. */
export const parseListenHost: Parser<string> = (raw) => {
  let t = raw.trim();
  if (t === '') return '0.0.0.0';
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  if (isIP(t) === 0) throw new Error('expected an IPv4 or IPv6 address such as 0.0.0.0, 127.0.0.1 or ::');
  return t;
};

/** An IP address or a CIDR block (`10.0.0.0/8`, `fd00::/8`), checked with node:net. */
export function isIpOrCidr(value: string): boolean {
  const slash = value.indexOf('/');
  if (slash === -1) return isIP(value) !== 0;
  const family = isIP(value.slice(0, slash));
  const prefix = value.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

export const parseTrustedProxies: Parser<string[]> = (raw) =>
  splitCommaOrSpace(raw).map((v) => {
    if (!isIpOrCidr(v)) {
      throw new Error(`${JSON.stringify(v)} is not an IP address or CIDR; expected IPs or CIDRs such as 10.0.0.1, 172.16.0.0/12 or fd00::/8`);
    }
    return v;
  });

/** CORS origins: `*`, `null`, or http(s) origins, normalised as browsers send them (lower-case host, no path). */
export const parseCorsOrigins: Parser<string[]> = (raw) =>
  splitCommaOrSpace(raw).map((v) => {
    if (v === '*' || v === 'null') return v;
    let url: URL | undefined;
    try {
      url = new URL(v);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === 'null') {
      throw new Error(`${JSON.stringify(v)} is not an origin; expected *, null or origins such as https://example.com`);
    }
    return url.origin;
  });

/** An HTTP header name (RFC 9110 token). */
export const parseHeaderName: Parser<string> = (raw) => {
  const t = raw.trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(t)) throw new Error('expected an HTTP header name such as X-Forwarded-For');
  return t;
};

/** Cron strings are validated by the scheduler; here only the quotes a shell or compose file left are removed. */
export const parseSchedule: Parser<string> = (raw) => {
  let t = raw.trim();
  while (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    t = t.slice(1, -1).trim();
  }
  return t;
};

/** Container names as Docker reports them carry a leading `/`; users write them without. */
export function stripSlash(name: string): string {
  return name.replace(/^\/+/, '');
}

/** Plugin module specifiers: kept as written (the loader resolves paths against the cwd, names from node_modules). */
export const parsePluginList: Parser<string[]> = listParser(splitCommaOrSpace);
