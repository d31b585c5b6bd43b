// `lark://open.larksuite.com/<bot token>` (or `open.feishu.cn` for Feishu): a Lark custom bot's
// `POST /open-apis/bot/v2/hook/<token>` (docs/notifications.md#services). Without a title the message is a
// `text` message; with one, a `post` (rich text) with the title and, with `link=`, a "More Info" link.
// With `secret=` the request is signed as Lark documents: `timestamp` and `sign` = base64 of
// HMAC-SHA256 keyed with "<timestamp>\n<secret>" over nothing. Lark answers 200 with `{"code": 0}`.
import { createHmac } from 'node:crypto';
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { httpService, type HttpServiceOptions, type HttpServiceSettings, jsonOf, notificationFailed, postJson, scrub } from './http.js';
import { UrlQuery, decodePart } from './query.js';

export interface LarkOptions extends HttpServiceOptions {
  /** Test only: the clock the signature's timestamp comes from. */
  readonly now?: () => number;
}

const HOSTS = ['open.larksuite.com', 'open.feishu.cn'];
const MESSAGE_MAX = 4096;

export function createLarkService(options: LarkOptions = {}): NotificationService {
  const now = options.now ?? Date.now;
  return httpService(['lark'], options, (url, settings) => parseLark(url, settings, now));
}

/** Lark's custom-bot signature for `timestamp` (seconds). */
export function larkSign(secret: string, timestamp: number): string {
  return createHmac('sha256', `${timestamp}\n${secret}`).update('').digest('base64');
}

function parseLark(url: URL, { base, timeoutMs }: HttpServiceSettings, now: () => number): NotificationSender {
  const q = new UrlQuery(url, 'lark');
  const host = url.host === '' ? HOSTS[0]! : url.host;
  const token = decodePart(url.pathname.replace(/^\/+|\/+$/g, ''));
  const secret = q.get('secret') ?? '';
  const configTitle = q.get('title') ?? '';
  const link = q.get('link') ?? '';
  q.rejectUnknown();
  if (!HOSTS.includes(host)) throw q.bad(`the host must be ${HOSTS.join(' or ')}`);
  if (token === '') throw q.bad('the URL has no bot token (lark://open.larksuite.com/<token>)');

  const endpoint = `${base ?? `https://${host}`}/open-apis/bot/v2/hook/${encodeURIComponent(token)}`;
  const secrets = [token, secret];
  const params = new URLSearchParams(url.search);
  if (params.has('secret')) params.set('secret', 'REDACTED');
  const redacted = `lark://${host}/REDACTED${params.size > 0 ? `?${params.toString()}` : ''}`;

  return {
    service: 'lark',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      if (Buffer.byteLength(message.body) > MESSAGE_MAX) throw notificationFailed('lark', `the message is longer than Lark's ${MESSAGE_MAX} bytes`);
      const title = message.title || configTitle;
      const content =
        title === ''
          ? { msg_type: 'text', content: { text: message.body } }
          : {
              msg_type: 'post',
              content: {
                post: {
                  en_us: {
                    title,
                    content: [
                      [{ tag: 'text', text: message.body }],
                      ...(link ? [[{ tag: 'a', text: 'More Info', href: link }]] : []),
                    ],
                  },
                },
              },
            };
      let signature = {};
      if (secret !== '') {
        const timestamp = Math.floor(now() / 1000);
        signature = { timestamp: String(timestamp), sign: larkSign(secret, timestamp) };
      }
      const answer = await postJson('lark', { url: endpoint, payload: { ...content, ...signature }, timeoutMs, ok: [200] }, signal, secrets);
      const res = jsonOf(answer.body) as { code?: unknown; msg?: unknown } | undefined;
      if (res?.code === 0 || res?.code === undefined) return;
      throw notificationFailed('lark', scrub(`the bot refused the message: ${String(res.code)} ${String(res.msg ?? '')}`.trim(), secrets));
    },
  };
}
