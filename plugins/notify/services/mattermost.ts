// `mattermost://[username@]host[:port]/<webhook token>[/<channel>]`: a Mattermost incoming webhook,
// `POST /hooks/<token>` with `{"text", "username", "channel", "icon_emoji" | "icon_url"}`
// (docs/notifications.md#services). The title is the first line of `text`. HTTPS unless `disabletls=yes`.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, postJson } from './http.js';
import { UrlQuery, pathSegments, redactUrl, userinfo } from './query.js';

export type MattermostOptions = HttpServiceOptions;

export function createMattermostService(options: MattermostOptions = {}): NotificationService {
  return httpService(['mattermost'], options, parseMattermost);
}

function parseMattermost(url: URL, { base, timeoutMs }: HttpServiceSettings): NotificationSender {
  const q = new UrlQuery(url, 'mattermost');
  const [token = '', channel = ''] = pathSegments(url);
  const { user: username } = userinfo(url);
  const icon = q.get('icon', 'icon_emoji', 'icon_url') ?? '';
  const configTitle = q.get('title') ?? '';
  const disableTls = q.bool('disabletls', false);
  q.rejectUnknown();
  if (url.host === '') throw q.bad('the URL names no host');
  if (token === '') throw q.bad('the URL has no webhook token (mattermost://host/<token>[/<channel>])');

  const origin = base ?? `${disableTls ? 'http' : 'https'}://${url.host}`;
  const endpoint = `${origin}/hooks/${encodeURIComponent(token)}`;
  // An icon that is a URL is sent as icon_url, anything else as an emoji name.
  const iconField = icon === '' ? {} : /^https?:\/\//i.test(icon) ? { icon_url: icon } : { icon_emoji: icon };
  const secrets = [token];
  const redacted = redactUrl(url, { path: true });

  return {
    service: 'mattermost',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const title = message.title || configTitle;
      const payload = {
        text: title === '' ? message.body : `${title}\n${message.body}`,
        ...(username ? { username } : {}),
        ...(channel ? { channel } : {}),
        ...iconField,
      };
      await postJson('mattermost', { url: endpoint, payload, timeoutMs, ok: [200] }, signal, secrets);
    },
  };
}
