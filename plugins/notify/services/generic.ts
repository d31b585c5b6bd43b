// `generic://`, `generic+https://`, `generic+http://`: a webhook of the user's choosing
// (docs/notifications.md#services). The body is the message as text, or with `template=json` a JSON
// object of title and message (plus `$key=value` fields); `@Header=value` parameters become request
// headers; parameters the service does not read are forwarded to the webhook.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, expectStatus, httpCall } from './http.js';
import { UrlQuery, redactUrl, userinfo } from './query.js';

/** The parameters generic itself reads; any other is forwarded (prefix one with `_` or `__` to forward it too). */
const RESERVED = ['template', 'contenttype', 'disabletls', 'title', 'titlekey', 'messagekey', 'method'] as const;

/** `acceptLanguage` → `Accept-Language`, `x-custom` → `X-Custom`, as shoutrrr normalises header keys. */
export function headerName(key: string): string {
  let out = '';
  for (let i = 0; i < key.length; i++) {
    const c = key[i]!;
    const prev = i > 0 ? key[i - 1] : undefined;
    if (c >= 'A' && c <= 'Z') out += (i > 0 && prev !== '-' ? '-' : '') + c;
    else out += i === 0 || prev === '-' ? c.toUpperCase() : c;
  }
  return out;
}

export interface GenericOptions {
  readonly timeoutMs?: number;
}

export function createGenericService(options: GenericOptions = {}): NotificationService {
  return {
    schemes: ['generic', 'generic+https', 'generic+http'],
    parse: (url) => parseGeneric(url, options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  };
}

function parseGeneric(url: URL, timeoutMs: number): NotificationSender {
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  const q = new UrlQuery(url, scheme);
  if (url.hostname === '') throw q.bad('the URL names no host');
  const template = q.get('template') ?? '';
  if (template !== '' && template.toLowerCase() !== 'json') throw q.bad('template must be "json" (the only built-in one)');
  const json = template !== '';
  const explicitType = q.get('contenttype');
  const contentType = explicitType || (json ? 'application/json' : 'text/plain');
  const titleKey = q.string('titlekey', 'title') || 'title';
  const messageKey = q.string('messagekey', 'message') || 'message';
  const method = (q.string('method', 'POST') || 'POST').toUpperCase();
  if (!/^[A-Z]+$/.test(method)) throw q.bad('method must be an HTTP method name');
  const configTitle = q.get('title') ?? '';
  const plainScheme = scheme === 'generic+http' ? 'http' : 'https';
  const target = q.bool('disabletls', false) ? 'http' : plainScheme;

  const headers: Record<string, string> = {};
  const extra: Record<string, string> = {};
  const forwarded = new URLSearchParams();
  for (const [key, value] of q.unknown()) {
    if (key.length > 1 && key.startsWith('@')) headers[headerName(key.slice(1))] = value;
    else if (key.length > 1 && key.startsWith('$')) extra[key.slice(1)] = value;
    else forwarded.append(unescapeKey(key), value);
  }
  const { user, password } = userinfo(url);
  const secrets = [password ?? '', user, ...Object.values(headers), ...Object.values(extra), ...[...forwarded.values()]];
  if (user !== '' || password !== undefined) {
    headers.Authorization ??= `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}`;
  }
  const query = forwarded.size > 0 ? `?${forwarded.toString()}` : '';
  const endpoint = `${target}://${url.host}${url.pathname}${query}`;
  // The path and forwarded values may be a webhook's secret (a Home Assistant webhook id): all hidden.
  const redacted = redactUrl(url, { user: true, password: true, path: true, query: (k) => !(RESERVED as readonly string[]).includes(k) });
  const pathSecrets = url.pathname.split('/').filter((s) => s.length >= 3);

  return {
    service: 'generic',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const title = message.title || configTitle;
      let body = message.body;
      if (json) {
        const payload: Record<string, string> = {};
        if (title !== '') payload[titleKey] = title;
        payload[messageKey] = message.body;
        Object.assign(payload, extra);
        body = JSON.stringify(payload);
      }
      const all = [...secrets, ...pathSecrets];
      const answer = await httpCall(
        'generic',
        { method, url: endpoint, headers: { 'Content-Type': contentType, Accept: contentType, ...headers }, body, timeoutMs },
        signal,
        all,
      );
      expectStatus('generic', answer, all);
    },
  };
}

/** `_contenttype` / `__contenttype` forward a parameter generic would otherwise read itself. */
function unescapeKey(key: string): string {
  const bare = key.replace(/^_{1,2}/, '');
  return bare !== key && (RESERVED as readonly string[]).includes(bare.toLowerCase()) ? bare : key;
}
