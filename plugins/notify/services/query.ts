// Reading a notification URL's parts the way shoutrrr does (docs/notifications.md#services): query keys
// are case-insensitive, booleans are yes/no/true/false/1/0/y/n, and each service says which keys exist.
// Errors name the scheme and the key, never the value.
import { invalidNotificationUrl } from '../urls.js';

export class UrlQuery {
  readonly #scheme: string;
  readonly #entries: ReadonlyArray<readonly [string, string]>;
  readonly #used = new Set<string>();

  constructor(url: URL, scheme = url.protocol.replace(/:$/, '')) {
    this.#scheme = scheme;
    this.#entries = [...url.searchParams.entries()];
  }

  /** The first value of the first of `keys` present (any letter case); marks every key as known. */
  get(...keys: string[]): string | undefined {
    for (const key of keys) this.#used.add(key.toLowerCase());
    for (const key of keys) {
      const hit = this.#entries.find(([k]) => k.toLowerCase() === key.toLowerCase());
      if (hit) return hit[1];
    }
    return undefined;
  }

  /** A non-empty value, or the default (shoutrrr treats `key=` as unset for strings with defaults). */
  string(keys: string | string[], fallback: string): string {
    const v = this.get(...[keys].flat());
    return v === undefined ? fallback : v;
  }

  bool(keys: string | string[], fallback: boolean): boolean {
    const name = [keys].flat()[0]!;
    const v = this.get(...[keys].flat());
    if (v === undefined || v === '') return fallback;
    const parsed = parseBool(v);
    if (parsed === undefined) throw this.bad(`parameter "${name}" must be yes or no`);
    return parsed;
  }

  int(keys: string | string[], fallback: number, min: number, max: number): number {
    const name = [keys].flat()[0]!;
    const v = this.get(...[keys].flat());
    if (v === undefined || v === '') return fallback;
    if (!/^[+-]?\d+$/.test(v.trim())) throw this.bad(`parameter "${name}" must be an integer`);
    const n = Number(v.trim());
    if (n < min || n > max) throw this.bad(`parameter "${name}" must be between ${min} and ${max}`);
    return n;
  }

  /** A separated list, empty items dropped. */
  list(keys: string | string[], separator = ','): string[] {
    const v = this.get(...[keys].flat());
    if (v === undefined) return [];
    return v
      .split(separator)
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }

  /** Shoutrrr refuses a query key its service does not define; so do we. */
  rejectUnknown(): void {
    const unknown = this.unknown();
    if (unknown.length > 0) throw this.bad(`unknown parameter "${unknown[0]![0]}"`);
  }

  /** The entries no `get` asked for, in their order. */
  unknown(): Array<readonly [string, string]> {
    return this.#entries.filter(([k]) => !this.#used.has(k.toLowerCase()));
  }

  bad(what: string): Error {
    return invalidNotificationUrl(this.#scheme, what);
  }
}

export function parseBool(value: string): boolean | undefined {
  switch (value.trim().toLowerCase()) {
    case 'true': case '1': case 'yes': case 'y': return true;
    case 'false': case '0': case 'no': case 'n': return false;
    default: return undefined;
  }
}

/** WHATWG keeps user info percent-encoded; services want the text. */
export function userinfo(url: URL): { user: string; password: string | undefined } {
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  // WHATWG cannot tell `user:` from `user`; the authority as written can (it ends at the first `/` or `?`,
  // user info being percent-encoded by then).
  const rest = url.href.slice(url.protocol.length + 2);
  const authority = rest.slice(0, rest.search(/[/?#]|$/));
  const at = authority.lastIndexOf('@');
  const hasPassword = at !== -1 && authority.slice(0, at).includes(':');
  return { user: decode(url.username), password: hasPassword ? decode(url.password) : undefined };
}

/** The URL with each secret part replaced by `REDACTED` (docs/notifications.md#services). */
export function redactUrl(
  url: URL,
  secret: { user?: boolean; password?: boolean; path?: boolean; query?: (key: string) => boolean },
): string {
  const { user, password } = userinfo(url);
  let auth = '';
  if (user !== '' || password !== undefined) {
    const u = secret.user && user !== '' ? 'REDACTED' : encodeURIComponent(user);
    const p = password === undefined ? '' : `:${secret.password ? 'REDACTED' : encodeURIComponent(password)}`;
    auth = `${u}${p}@`;
  }
  const path = secret.path && url.pathname !== '' && url.pathname !== '/' ? '/REDACTED' : url.pathname;
  const params = new URLSearchParams();
  for (const [k, v] of url.searchParams) params.append(k, secret.query?.(k.toLowerCase()) && v !== '' ? 'REDACTED' : v);
  const query = params.size > 0 ? `?${params.toString()}` : '';
  return `${url.protocol}//${auth}${url.host}${path}${query}`;
}

/** Percent-decodes one URL part, keeping it as written when it is not valid percent-encoding. */
export function decodePart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The path's segments, decoded, empty ones (a leading or trailing `/`) dropped. */
export function pathSegments(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter((s) => s !== '')
    .map(decodePart);
}
