// `join://shoutrrr:<API key>@join/?devices=<id>[,<id>…]`: Join's `sendPush`, a POST whose parameters are
// all in the query (`deviceIds`, `apikey`, `text`, `title`, `icon`) and whose body is empty
// (docs/notifications.md#services). A title makes it a notification on the devices.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, expectStatus, httpCall, trimBase } from './http.js';
import { UrlQuery, userinfo } from './query.js';

export interface JoinOptions {
  /** The real `https://joinjoaomgcd.appspot.com` unless a test says otherwise. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
}

export function createJoinService(options: JoinOptions = {}): NotificationService {
  const base = trimBase(options.baseUrl ?? 'https://joinjoaomgcd.appspot.com');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['join'], parse: (url) => parseJoin(url, base, timeoutMs) };
}

function parseJoin(url: URL, base: string, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'join');
  const { user, password } = userinfo(url);
  const apiKey = password ?? '';
  const devices = q.list('devices');
  const configTitle = q.get('title') ?? '';
  const icon = q.get('icon') ?? '';
  q.rejectUnknown();
  if (devices.length === 0) throw q.bad('no "devices" given');
  if (apiKey === '') throw q.bad('the URL has no API key (join://shoutrrr:<API key>@join/?devices=…)');

  const secrets = [apiKey];
  const redacted = `join://${encodeURIComponent(user)}:REDACTED@${url.host}/${url.search}`;

  return {
    service: 'join',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const query = new URLSearchParams({ deviceIds: devices.join(','), apikey: apiKey, text: message.body });
      const title = message.title || configTitle;
      if (title !== '') query.set('title', title);
      if (icon !== '') query.set('icon', icon);
      const answer = await httpCall(
        'join',
        { url: `${base}/_ah/api/messaging/v1/sendPush?${query.toString()}`, headers: { 'Content-Type': 'text/plain' }, timeoutMs },
        signal,
        secrets,
      );
      expectStatus('join', answer, secrets, [200]);
    },
  };
}
