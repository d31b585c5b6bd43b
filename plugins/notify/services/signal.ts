// `signal://[user[:password]@]host[:port]/<source number>/<recipient>[/<recipient>…]`: a message through a
// signal-cli REST API server's `POST /v2/send` (docs/notifications.md#services). Recipients are phone numbers
// or `group.<id>` (a group id may hold `/`); `token=` (or `apikey=`) is sent as a Bearer token, else user
// info as basic auth. HTTPS unless `disabletls=yes`; port 8080 unless given. As in shoutrrr, the message
// goes without its title (Signal messages have none).
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { basicAuth, httpService, type HttpServiceOptions, type HttpServiceSettings, postJson } from './http.js';
import { UrlQuery, decodePart, redactUrl, userinfo } from './query.js';

export type SignalOptions = HttpServiceOptions;

const PHONE = /^\+?[0-9\s)(+-]+$/;
const GROUP = /^group\.[a-zA-Z0-9_+/=-]+$/;

export function createSignalService(options: SignalOptions = {}): NotificationService {
  return httpService(['signal'], options, parseSignal);
}

/** Path segments after the source: a `group.` id swallows the segments after it until a `+` number. */
export function signalRecipients(parts: readonly string[]): string[] {
  const out: string[] = [];
  let group: string | undefined;
  for (const part of parts) {
    if (part.startsWith('group.')) {
      if (group !== undefined) out.push(group);
      group = part;
    } else if (group !== undefined && !part.startsWith('+')) {
      group += `/${part}`;
    } else {
      if (group !== undefined) out.push(group);
      group = undefined;
      out.push(part);
    }
  }
  if (group !== undefined) out.push(group);
  return out;
}

function parseSignal(url: URL, { base, timeoutMs }: HttpServiceSettings): NotificationSender {
  const q = new UrlQuery(url, 'signal');
  const auth = userinfo(url);
  const user = q.string('user', auth.user);
  const password = q.string('password', auth.password ?? '');
  const token = q.get('token', 'apikey') ?? '';
  const host = q.string('host', url.hostname === '' ? 'localhost' : url.hostname);
  const port = q.int('port', url.port === '' ? 8080 : Number(url.port), 1, 65535);
  const disableTls = q.bool('disabletls', false);
  const parts = url.pathname.split('/').filter((s) => s !== '').map(decodePart);
  const source = q.string('source', parts[0] ?? '');
  const fromQuery = q.list(['recipients', 'to']);
  const recipients = fromQuery.length > 0 ? fromQuery : signalRecipients(parts.slice(1));
  q.rejectUnknown();
  if (source === '') throw q.bad('the URL names no source number (signal://host/<source>/<recipient>)');
  if (!PHONE.test(source)) throw q.bad('the source is not a phone number');
  if (recipients.length === 0) throw q.bad('the URL names no recipient (signal://host/<source>/<recipient>)');
  for (const r of recipients) {
    if (!PHONE.test(r) && !GROUP.test(r)) throw q.bad('a recipient is neither a phone number nor group.<id>');
  }

  const origin = base ?? `${disableTls ? 'http' : 'https'}://${host}:${port}`;
  const headers: Record<string, string> = {};
  if (token !== '') headers.Authorization = `Bearer ${token}`;
  else if (user !== '') headers.Authorization = basicAuth(user, password);
  const secrets = [token, password];
  const redacted = redactUrl(url, { password: true, query: (k) => k === 'token' || k === 'apikey' || k === 'password' });

  return {
    service: 'signal',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const payload = { message: message.body, number: source, recipients };
      await postJson('signal', { url: `${origin}/v2/send`, payload, headers, timeoutMs }, signal, secrets);
    },
  };
}
