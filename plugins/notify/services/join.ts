// `join://shoutrrr:<API key>@join/?devices=<id>[,<id>…]`: Join's `sendPush`, a POST whose parameters are
// all in the query (`deviceIds`, `apikey`, `text`, `title`, `icon`) and whose body is empty
// (docs/notifications.md#services). A title makes it a notification on the devices.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { expectStatus, httpCall, httpService, type HttpServiceOptions, type HttpServiceSettings } from './http.js';
import { UrlQuery, userinfo } from './query.js';

export type JoinOptions = HttpServiceOptions;

export function createJoinService(options: JoinOptions = {}): NotificationService {
  return httpService(['join'], options, parseJoin);
}

function parseJoin(url: URL, { base: testBase, timeoutMs }: HttpServiceSettings): NotificationSender {
  const base = testBase ?? 'https://joinjoaomgcd.appspot.com';
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
