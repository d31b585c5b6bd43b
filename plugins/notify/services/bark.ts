// `bark://:<device key>@host[:port][/path]`: a Bark server's `POST <path>/push` with
// `{"body", "device_key", "title", "badge", …}` (docs/notifications.md#services); `scheme=http` for a
// server without TLS. The server answers 200 with `{"code": 200}`; any other code is a failure.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { excerpt, httpCall, httpService, type HttpServiceOptions, type HttpServiceSettings, jsonOf, notificationFailed, scrub } from './http.js';
import { UrlQuery, redactUrl, userinfo } from './query.js';

export type BarkOptions = HttpServiceOptions;

const OPTIONAL = ['sound', 'icon', 'group', 'url', 'category', 'copy'] as const;

export function createBarkService(options: BarkOptions = {}): NotificationService {
  return httpService(['bark'], options, parseBark);
}

function parseBark(url: URL, { base, timeoutMs }: HttpServiceSettings): NotificationSender {
  const q = new UrlQuery(url, 'bark');
  const deviceKey = userinfo(url).password ?? '';
  const configTitle = q.get('title') ?? '';
  const scheme = q.string('scheme', 'https').toLowerCase();
  const badge = q.int('badge', 0, -(2 ** 31), 2 ** 31 - 1);
  const extra: Record<string, string> = {};
  for (const key of OPTIONAL) {
    const v = q.get(key) ?? '';
    if (v !== '') extra[key] = v;
  }
  q.rejectUnknown();
  if (deviceKey === '') throw q.bad('the URL has no device key (bark://:<device key>@host)');
  if (url.host === '') throw q.bad('the URL names no host');
  if (scheme !== 'http' && scheme !== 'https') throw q.bad('parameter "scheme" must be http or https');

  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
  const endpoint = `${base ?? `${scheme}://${url.host}`}${path.startsWith('/') ? path : `/${path}`}push`;
  const secrets = [deviceKey];
  const redacted = redactUrl(url, { password: true });

  return {
    service: 'bark',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const payload = { body: message.body, device_key: deviceKey, title: message.title || configTitle, badge, ...extra };
      const answer = await httpCall(
        'bark',
        { url: endpoint, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload), timeoutMs },
        signal,
        secrets,
      );
      // Bark puts its verdict in the body: `{"code": 200, "message": "success"}`.
      const res = jsonOf(answer.body) as { code?: unknown; message?: unknown } | undefined;
      if (res?.code === 200) return;
      const why = typeof res?.message === 'string' ? `${String(res.code)} ${res.message}` : `HTTP ${answer.status}${excerpt(answer.body)}`;
      throw notificationFailed('bark', scrub(`server refused the push: ${why}`, secrets));
    },
  };
}
