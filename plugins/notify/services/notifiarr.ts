// `notifiarr://<API key>[?name=…&channel=…&color=…&thumbnail=…&image=…]`: Notifiarr's passthrough
// integration, `POST notifiarr.com/api/v1/notification/passthrough/<key>` (docs/notifications.md#services)
// with `{"notification": {"name"}, "discord": {"text": {"title", "description"}, …}}`: the message as the
// description, `channel=` the Discord channel id, `color=` a 6-digit hex colour; the first `<@id>` /
// `<@&id>` mention in the message is pinged. Notifiarr answers 401 to a wrong key.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { expectStatus, httpCall, httpService, type HttpServiceOptions, type HttpServiceSettings, notificationFailed } from './http.js';
import { UrlQuery, decodePart } from './query.js';

export type NotifiarrOptions = HttpServiceOptions;

export function createNotifiarrService(options: NotifiarrOptions = {}): NotificationService {
  return httpService(['notifiarr'], options, parseNotifiarr);
}

/** The ids of the first user and the first role mentioned (`<@123>`, `<@!123>`, `<@&456>`). */
export function notifiarrPing(text: string): { pingUser?: number; pingRole?: number } {
  const ping: { pingUser?: number; pingRole?: number } = {};
  for (const m of text.matchAll(/<@!?(\d+)>|<@&(\d+)>/g)) {
    if (m[1] !== undefined) ping.pingUser ??= Number(m[1]);
    if (m[2] !== undefined) ping.pingRole ??= Number(m[2]);
  }
  return ping;
}

function parseNotifiarr(url: URL, { base: testBase, timeoutMs }: HttpServiceSettings): NotificationSender {
  const base = testBase ?? 'https://notifiarr.com';
  const q = new UrlQuery(url, 'notifiarr');
  const apiKey = decodePart(url.hostname);
  const name = q.string('name', 'Shoutrrr');
  const channel = q.get('channel') ?? '';
  const color = q.get('color') ?? '';
  const thumbnail = q.get('thumbnail') ?? '';
  const image = q.get('image') ?? '';
  q.rejectUnknown();
  if (apiKey === '') throw q.bad('the URL has no API key (notifiarr://<API key>)');
  if (channel !== '' && !/^\d+$/.test(channel)) throw q.bad('parameter "channel" must be a Discord channel id (digits)');

  const endpoint = `${base}/api/v1/notification/passthrough/${encodeURIComponent(apiKey)}`;
  const secrets = [apiKey];
  const redacted = `notifiarr://REDACTED${url.search}`;

  return {
    service: 'notifiarr',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      if (message.body === '') throw notificationFailed('notifiarr', 'the message is empty');
      const ping = notifiarrPing(message.body);
      const discord = {
        ...(color ? { color } : {}),
        ...(ping.pingUser !== undefined || ping.pingRole !== undefined ? { ping } : {}),
        ...(thumbnail || image ? { images: { ...(thumbnail ? { thumbnail } : {}), ...(image ? { image } : {}) } } : {}),
        text: { ...(message.title ? { title: message.title } : {}), description: message.body },
        ...(channel ? { ids: { channel: Number(channel) } } : {}),
      };
      const answer = await httpCall(
        'notifiarr',
        {
          url: endpoint,
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ notification: { name }, discord }),
          timeoutMs,
        },
        signal,
        secrets,
      );
      if (answer.status === 401) throw notificationFailed('notifiarr', 'authentication failed (HTTP 401): check the API key');
      expectStatus('notifiarr', answer, secrets);
    },
  };
}
