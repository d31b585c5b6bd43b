// `telegram://<bot id>:<secret>@telegram?chats=<chat>[,<chat>…]`: the Bot API's sendMessage, once per
// chat (docs/notifications.md#services). A `<chat>:<thread>` sends to a forum topic. A title needs HTML:
// without a parse mode the message is escaped and sent as HTML under a bold title.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, excerpt, httpCall, jsonOf, notificationFailed, scrub, trimBase } from './http.js';
import { UrlQuery, userinfo } from './query.js';

export interface TelegramOptions {
  /** The real `https://api.telegram.org` unless a test says otherwise. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
}

const MAX_LENGTH = 4096;
const PARSE_MODES = ['None', 'Markdown', 'HTML', 'MarkdownV2'] as const;
type ParseMode = (typeof PARSE_MODES)[number];

export function createTelegramService(options: TelegramOptions = {}): NotificationService {
  const base = trimBase(options.baseUrl ?? 'https://api.telegram.org');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['telegram'], parse: (url) => parseTelegram(url, base, timeoutMs) };
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

function parseTelegram(url: URL, base: string, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'telegram');
  const { user, password } = userinfo(url);
  const token = `${user}:${password ?? ''}`;
  if (!/^[0-9]+:[a-zA-Z0-9_-]+$/.test(token)) throw q.bad('the bot token is not <digits>:<secret>');
  const preview = q.bool('preview', true);
  const notification = q.bool('notification', true);
  const modeRaw = q.get('parsemode') ?? '';
  const parseMode = modeRaw === '' ? 'None' : PARSE_MODES.find((m) => m.toLowerCase() === modeRaw.toLowerCase());
  if (parseMode === undefined) throw q.bad(`parameter "parsemode" must be one of ${PARSE_MODES.join(', ')}`);
  const chats = q.list(['chats', 'channels']);
  const configTitle = q.get('title') ?? '';
  q.rejectUnknown();
  if (chats.length === 0) throw q.bad('no chats given (chats=<chat id or @channel>,...)');

  const secrets = [token, password ?? ''];
  const redacted = `telegram://${user}:REDACTED@${url.host}${url.pathname === '/' ? '/' : ''}${url.search}`;

  return {
    service: 'telegram',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      if (message.body.length > MAX_LENGTH) throw notificationFailed('telegram', `the message exceeds ${MAX_LENGTH} characters`);
      for (const chat of chats) {
        const payload = telegramPayload(message.body, message.title || configTitle, chat, { preview, notification, parseMode });
        const answer = await httpCall(
          'telegram',
          { url: `${base}/bot${token}/sendMessage`, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(payload), timeoutMs },
          signal,
          secrets,
        );
        const res = jsonOf(answer.body) as { ok?: unknown; description?: unknown } | undefined;
        if (answer.status >= 300 || res?.ok !== true) {
          const why = typeof res?.description === 'string' ? res.description : `HTTP ${answer.status}${excerpt(answer.body)}`;
          throw notificationFailed('telegram', scrub(`sendMessage failed: ${why}`, secrets));
        }
      }
    },
  };
}

export function telegramPayload(
  text: string,
  title: string,
  chat: string,
  s: { preview: boolean; notification: boolean; parseMode: ParseMode },
): Record<string, unknown> {
  const [chatId, thread] = chat.includes(':') ? [chat.slice(0, chat.indexOf(':')), chat.slice(chat.indexOf(':') + 1)] : [chat, ''];
  let mode: ParseMode = s.parseMode;
  let body = text;
  if (mode === 'None' && title !== '') {
    mode = 'HTML';
    body = escapeHtml(text);
  }
  if (mode === 'HTML' && title !== '') body = `<b>${escapeHtml(title)}</b>\n${body}`;
  const payload: Record<string, unknown> = {
    text: body,
    chat_id: chatId,
    disable_web_page_preview: !s.preview,
    disable_notification: !s.notification,
  };
  if (/^-?\d+$/.test(thread)) payload.message_thread_id = Number(thread);
  if (mode !== 'None') payload.parse_mode = mode;
  return payload;
}
