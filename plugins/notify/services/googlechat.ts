// `googlechat://chat.googleapis.com/v1/spaces/<space>/messages?key=<key>&token=<token>`: a Google Chat
// incoming webhook, the URL turned into HTTPS and posted `{"text"}` (docs/notifications.md#services).
// As in shoutrrr, only the message's text is sent (a Chat webhook message has no title).
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, postJson } from './http.js';
import { UrlQuery, redactUrl } from './query.js';

export type GoogleChatOptions = HttpServiceOptions;

export function createGoogleChatService(options: GoogleChatOptions = {}): NotificationService {
  return httpService(['googlechat', 'hangouts'], options, parseGoogleChat);
}

function parseGoogleChat(url: URL, { base, timeoutMs }: HttpServiceSettings): NotificationSender {
  const q = new UrlQuery(url, 'googlechat');
  const key = q.get('key') ?? '';
  const token = q.get('token') ?? '';
  q.rejectUnknown();
  // Shoutrrr lets a missing key or token through to fail at every send; a webhook URL always has both.
  if (key === '') throw q.bad('the URL has no "key" parameter (copy the whole webhook URL)');
  if (token === '') throw q.bad('the URL has no "token" parameter (copy the whole webhook URL)');
  if (url.pathname === '' || url.pathname === '/') throw q.bad('the URL has no webhook path (/v1/spaces/<space>/messages)');

  const host = url.host === '' ? 'chat.googleapis.com' : url.host;
  const query = new URLSearchParams({ key, token }).toString();
  const endpoint = `${base ?? `https://${host}`}${url.pathname}?${query}`;
  const secrets = [key, token];
  const redacted = redactUrl(url, { query: (k) => k === 'key' || k === 'token' });

  return {
    service: 'googlechat',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      await postJson('googlechat', { url: endpoint, payload: { text: message.body }, timeoutMs }, signal, secrets);
    },
  };
}
