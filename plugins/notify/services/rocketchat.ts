// `rocketchat://[username@]host[:port]/<token A>/<token B>[/<channel>]`: a Rocket.Chat incoming webhook,
// `POST https://host/hooks/<A>/<B>` with `{"text", "username", "channel"}` (docs/notifications.md#services).
// A channel is `#name` unless it names a user (`@user`). As in shoutrrr, only the message's text is sent.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, postJson } from './http.js';
import { UrlQuery, pathSegments, userinfo } from './query.js';

export type RocketChatOptions = HttpServiceOptions;

export function createRocketChatService(options: RocketChatOptions = {}): NotificationService {
  return httpService(['rocketchat'], options, parseRocketChat);
}

function parseRocketChat(url: URL, { base, timeoutMs }: HttpServiceSettings): NotificationSender {
  const q = new UrlQuery(url, 'rocketchat');
  q.rejectUnknown();
  const [tokenA = '', tokenB = '', rawChannel = ''] = pathSegments(url);
  const { user: username } = userinfo(url);
  if (url.host === '') throw q.bad('the URL names no host');
  if (tokenA === '' || tokenB === '') throw q.bad('the URL needs both webhook tokens (rocketchat://host/<token A>/<token B>[/<channel>])');
  // `#` reaches us as data (see urls.ts), so `/#general` and `/general` are both the channel #general.
  const channel = rawChannel === '' ? '' : /^[@#]/.test(rawChannel) ? rawChannel : `#${rawChannel}`;

  const endpoint = `${base ?? `https://${url.host}`}/hooks/${encodeURIComponent(tokenA)}/${encodeURIComponent(tokenB)}`;
  const secrets = [tokenA, tokenB];
  const redacted = `rocketchat://${username ? `${encodeURIComponent(username)}@` : ''}${url.host}/REDACTED/REDACTED${
    channel ? `/${encodeURIComponent(channel)}` : ''
  }`;

  return {
    service: 'rocketchat',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const payload = { text: message.body, ...(username ? { username } : {}), ...(channel ? { channel } : {}) };
      await postJson('rocketchat', { url: endpoint, payload, timeoutMs, ok: [200] }, signal, secrets);
    },
  };
}
