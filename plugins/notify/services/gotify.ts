// `gotify://<host>[:port][/subpath]/<app token>`: Gotify's POST /message (docs/notifications.md#services),
// the token as `?token=` or, with `useheader=yes`, as `X-Gotify-Key`. HTTPS unless `disabletls=yes`.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, excerpt, httpCall, jsonOf, notificationFailed, scrub } from './http.js';
import { UrlQuery } from './query.js';

export interface GotifyOptions {
  readonly timeoutMs?: number;
}

const TOKEN_CHARS = /^[A-Za-z0-9._-]+$/;

/** An application token: 15 characters starting with `A`, or the newer `gtfy…` form. */
export function isGotifyToken(token: string): boolean {
  if (!TOKEN_CHARS.test(token)) return false;
  if (token.length === 15 && token.startsWith('A')) return true;
  return token.startsWith('gtfy') && token.length >= 16;
}

export function createGotifyService(options: GotifyOptions = {}): NotificationService {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['gotify'], parse: (url) => parseGotify(url, timeoutMs) };
}

function parseGotify(url: URL, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'gotify');
  if (url.hostname === '') throw q.bad('the URL names no host');
  const path = url.pathname.replace(/\/+$/, '');
  const cut = path.lastIndexOf('/');
  const subpath = path.slice(0, Math.max(cut, 0));
  const token = decodeURIComponent(path.slice(cut + 1));
  if (!isGotifyToken(token)) throw q.bad('the application token is missing or malformed (15 characters starting with A)');
  const priority = q.int('priority', 0, -2, 10);
  const configTitle = q.string('title', 'Shoutrrr notification');
  const disableTls = q.bool('disabletls', false);
  const insecure = q.bool('insecureskipverify', false);
  const useHeader = q.bool('useheader', false);
  const date = q.get('date') ?? '';
  const extrasRaw = q.get('extras') ?? '';
  let extras: Record<string, unknown> | null = null;
  if (extrasRaw !== '') {
    const parsed = jsonOf(extrasRaw);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw q.bad('parameter "extras" must be a JSON object');
    extras = parsed as Record<string, unknown>;
  }
  q.rejectUnknown();

  const base = `${disableTls ? 'http' : 'https'}://${url.host}${subpath}/message`;
  const endpoint = useHeader ? base : `${base}?token=${encodeURIComponent(token)}`;
  const secrets = [token];
  const redacted = `gotify://${url.host}${subpath}/REDACTED${url.search}`;

  return {
    service: 'gotify',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const payload: Record<string, unknown> = { message: message.body, title: message.title || configTitle, priority, extras };
      if (date !== '') payload.date = date;
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (useHeader) headers['X-Gotify-Key'] = token;
      const answer = await httpCall('gotify', { url: endpoint, headers, body: JSON.stringify(payload), timeoutMs, insecure }, signal, secrets);
      if (answer.status >= 200 && answer.status < 300) return;
      const res = jsonOf(answer.body) as { error?: unknown; errorDescription?: unknown } | undefined;
      const why = typeof res?.errorDescription === 'string' ? `${String(res.error ?? '')}: ${res.errorDescription}` : excerpt(answer.body).slice(2);
      throw notificationFailed('gotify', scrub(`HTTP ${answer.status}${why ? ` (${why})` : ''}`, secrets));
    },
  };
}
