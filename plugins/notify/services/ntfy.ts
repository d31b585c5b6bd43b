// `ntfy://[user:password@]<host>[:port]/<topic>`: an ntfy publish, the message as the body and the
// options as headers (docs/notifications.md#services). HTTPS unless `scheme=http` or `disabletls=yes`.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, excerpt, httpCall, jsonOf, notificationFailed, scrub } from './http.js';
import { UrlQuery, redactUrl, userinfo } from './query.js';

export interface NtfyOptions {
  readonly timeoutMs?: number;
}

const PRIORITIES: Readonly<Record<string, string>> = {
  '1': 'Min', min: 'Min', '2': 'Low', low: 'Low', '3': 'Default', default: 'Default',
  '4': 'High', high: 'High', '5': 'Max', max: 'Max', urgent: 'Max',
};

export function createNtfyService(options: NtfyOptions = {}): NotificationService {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['ntfy'], parse: (url) => parseNtfy(url, timeoutMs) };
}

function parseNtfy(url: URL, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'ntfy');
  const host = url.host === '' ? 'ntfy.sh' : url.host;
  const topic = url.pathname.replace(/^\//, '');
  if (topic === '') throw q.bad('the URL names no topic (ntfy://<host>/<topic>)');
  const { user, password } = userinfo(url);
  const configTitle = q.get('title') ?? '';
  let scheme = (q.get('scheme') || 'https').toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') throw q.bad('parameter "scheme" must be http or https');
  if (q.bool('disabletls', false)) scheme = 'http';
  const insecure = q.bool('disabletlsverification', false);
  const priorityRaw = (q.get('priority') || 'default').toLowerCase();
  const priority = PRIORITIES[priorityRaw];
  if (priority === undefined) throw q.bad('parameter "priority" must be 1-5 or min, low, default, high, max, urgent');
  const headers: Record<string, string> = {
    'Content-Type': q.bool('markdown', false) ? 'text/markdown' : 'text/plain; charset=utf-8',
    Priority: priority,
  };
  const optional: Array<[string, string]> = [
    ['Tags', q.list('tags').join(',')],
    ['Delay', q.get('delay', 'at', 'in') ?? ''],
    ['Actions', q.list('actions', ';').join(';')],
    ['Click', q.get('click') ?? ''],
    ['Attach', q.get('attach') ?? ''],
    ['X-Icon', q.get('icon') ?? ''],
    ['Filename', q.get('filename') ?? ''],
    ['Email', q.get('email') ?? ''],
  ];
  for (const [name, value] of optional) if (value !== '') headers[name] = value;
  if (!q.bool('cache', true)) headers.Cache = 'no';
  if (!q.bool('firebase', true)) headers.Firebase = 'no';
  if (user !== '' || (password ?? '') !== '') {
    headers.Authorization = `Basic ${Buffer.from(`${user}:${password ?? ''}`).toString('base64')}`;
  }
  q.rejectUnknown();

  const endpoint = `${scheme}://${host}/${topic}`;
  const secrets = [password ?? ''];
  const redacted = redactUrl(url, { password: true });

  return {
    service: 'ntfy',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const title = message.title || configTitle;
      // Header values must be Latin-1; ntfy decodes RFC 2047 encoded words in its headers.
      const all = { ...headers, ...(title ? { Title: headerSafe(title) } : {}) };
      const answer = await httpCall('ntfy', { url: endpoint, headers: all, body: message.body, timeoutMs, insecure }, signal, secrets);
      if (answer.status >= 200 && answer.status < 300) return;
      const res = jsonOf(answer.body) as { code?: unknown; error?: unknown } | undefined;
      const why = typeof res?.error === 'string' ? `${res.error} (${String(res.code ?? answer.status)})` : `HTTP ${answer.status}${excerpt(answer.body)}`;
      throw notificationFailed('ntfy', scrub(`server refused the message: ${why}`, secrets));
    },
  };
}

/** A header value as is when it is printable ASCII, else an RFC 2047 UTF-8 encoded word. */
export function headerSafe(value: string): string {
  const flat = value.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(flat) ? flat : `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}
