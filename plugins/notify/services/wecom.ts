// `wecom://<webhook key>[?mentioned_list=…&mentioned_mobile_list=…]`: a WeCom (WeChat Work) group bot,
// `POST qyapi.weixin.qq.com/cgi-bin/webhook/send?key=<key>` with a `text` message
// (docs/notifications.md#services). The mention lists are comma-separated user ids (`@all` for everyone)
// and mobile numbers; each item is its own entry (shoutrrr 0.17 sends the whole list as one entry, which
// WeCom does not match). WeCom answers 200 with `{"errcode": 0}`; messages are at most 4096 bytes.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, jsonOf, notificationFailed, postJson, scrub } from './http.js';
import { UrlQuery, decodePart } from './query.js';

export type WeComOptions = HttpServiceOptions;

const MESSAGE_MAX = 4096;

export function createWeComService(options: WeComOptions = {}): NotificationService {
  return httpService(['wecom'], options, parseWeCom);
}

function parseWeCom(url: URL, { base: testBase, timeoutMs }: HttpServiceSettings): NotificationSender {
  const base = testBase ?? 'https://qyapi.weixin.qq.com';
  const q = new UrlQuery(url, 'wecom');
  const key = decodePart(url.hostname);
  const mentioned = q.list('mentioned_list');
  const mobiles = q.list('mentioned_mobile_list');
  q.rejectUnknown();
  if (key === '') throw q.bad('the URL has no webhook key (wecom://<key>)');
  if (/[@!#$%^&*()+=[\]{}|\\:;"'<>?,./]/.test(key) || url.pathname.replace(/^\/$/, '') !== '') throw q.bad('the webhook key is malformed');

  const endpoint = `${base}/cgi-bin/webhook/send?key=${encodeURIComponent(key)}`;
  const secrets = [key];
  const redacted = `wecom://REDACTED${url.search}`;

  return {
    service: 'wecom',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      if (Buffer.byteLength(message.body) > MESSAGE_MAX) throw notificationFailed('wecom', `the message is longer than WeCom's ${MESSAGE_MAX} bytes`);
      const text = {
        content: message.body,
        ...(mentioned.length > 0 ? { mentioned_list: mentioned } : {}),
        ...(mobiles.length > 0 ? { mentioned_mobile_list: mobiles } : {}),
      };
      const answer = await postJson('wecom', { url: endpoint, payload: { msgtype: 'text', text }, timeoutMs, ok: [200] }, signal, secrets);
      const res = jsonOf(answer.body) as { errcode?: unknown; errmsg?: unknown } | undefined;
      if (res?.errcode === 0 || res?.errcode === undefined) return;
      throw notificationFailed('wecom', scrub(`the bot refused the message: ${String(res.errcode)} ${String(res.errmsg ?? '')}`.trim(), secrets));
    },
  };
}
