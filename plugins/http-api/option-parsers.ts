// Parsers of the HTTP API's option values: endpoint names, listen address, proxies, origins, header
// names. Each throws a plain Error saying what is accepted; the server names the option around it.
import { isIP } from 'node:net';
import { splitCommaOrSpace, type Parser, TidewatchError } from '../../core/index.js';

export const ENDPOINTS = [
  'agents',
  'approvals',
  'audit',
  'check',
  'config',
  'containers',
  'dashboard',
  'events',
  'health',
  'history',
  'hooks',
  'images',
  'metrics',
  'rollback',
  'rollouts',
  'snapshots',
  'swagger',
  'tokens',
  'update',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

const ENDPOINTS_ACCEPTED = `expected a comma- or space-separated list of ${ENDPOINTS.join(', ')}, or all alone; empty turns the API off`;

/**
 * `--http-api-endpoints` (docs/interface.md §3): comma or space separated, case-insensitive, `all` only alone,
 * unknown names refused. The result is sorted and unique with `all` expanded, so consumers test membership only.
 */
export const parseEndpoints: Parser<Endpoint[]> = (raw) => {
  const names = splitCommaOrSpace(raw.toLowerCase());
  if (names.includes('all')) {
    if (names.some((n) => n !== 'all')) throw new TidewatchError('TW_ERR_INVALID_VALUE', `"all" must be used alone; ${ENDPOINTS_ACCEPTED}`, 400);
    return [...ENDPOINTS];
  }
  const known: ReadonlySet<string> = new Set(ENDPOINTS);
  for (const n of names) {
    if (!known.has(n)) throw new TidewatchError('TW_ERR_INVALID_VALUE', `unknown endpoint ${JSON.stringify(n)}; ${ENDPOINTS_ACCEPTED}`, 400);
  }
  return [...new Set(names as Endpoint[])].sort();
};

/** A listen address: an IPv4 or IPv6 literal (brackets around IPv6 allowed); empty means all interfaces. */
export const parseListenHost: Parser<string> = (raw) => {
  let t = raw.trim();
  if (t === '') return '0.0.0.0';
  if (t.startsWith('[') && t.endsWith(']')) t = t.slice(1, -1);
  if (isIP(t) === 0) throw new TidewatchError('TW_ERR_INVALID_VALUE', 'expected an IPv4 or IPv6 address such as 0.0.0.0, 127.0.0.1 or ::', 400);
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
      throw new TidewatchError('TW_ERR_INVALID_VALUE', `${JSON.stringify(v)} is not an IP address or CIDR; expected IPs or CIDRs such as 10.0.0.1, 172.16.0.0/12 or fd00::/8`, 400);
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
      throw new TidewatchError('TW_ERR_INVALID_VALUE', `${JSON.stringify(v)} is not an origin; expected *, null or origins such as https://example.com`, 400);
    }
    return url.origin;
  });

/** An HTTP header name (RFC 9110 token). */
export const parseHeaderName: Parser<string> = (raw) => {
  const t = raw.trim();
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(t)) throw new TidewatchError('TW_ERR_INVALID_VALUE', 'expected an HTTP header name such as X-Forwarded-For', 400);
  return t;
};
