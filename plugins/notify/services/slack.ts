// `slack://`: a Slack incoming webhook (`slack://hook:<token>@webhook`, or the legacy
// `slack://[botname@]<T…>/<B…>/<secret>`) or the Bot API (`slack://xoxb:<token>@<channel>`); see
// docs/notifications.md#services. The message is sent as one attachment per line, the title as text.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, expectStatus, httpCall, jsonOf, notificationFailed, scrub, trimBase, excerpt } from './http.js';
import { UrlQuery, userinfo } from './query.js';

export interface SlackOptions {
  /** Where webhooks go; the real `https://hooks.slack.com` unless a test says otherwise. */
  readonly webhookBaseUrl?: string;
  /** Where Bot API calls go; the real `https://slack.com` unless a test says otherwise. */
  readonly apiBaseUrl?: string;
  readonly timeoutMs?: number;
}

/** Slack's token forms: a type (`hook`, `xoxb`, `xoxp`…), then three parts split by `-`, `/` or `,`. */
const TOKEN = /(?:(xox.|hook)[-:]|:?)([A-Z0-9]{9,})([-/,])([A-Z0-9]{9,})([-/,])([A-Za-z0-9]{24,})/;
const MAX_ATTACHMENTS = 100;

export interface SlackToken {
  readonly type: string;
  readonly parts: readonly [string, string, string];
}

/** Parses a token in any of its spellings, or explains why not (without echoing it). */
export function parseSlackToken(raw: string): SlackToken | string {
  const m = TOKEN.exec(raw);
  if (!m) return 'the token is not a Slack token (hook:… or xoxb:… with three parts)';
  if (m[3] !== m[5]) return 'the token mixes separators between its parts';
  return { type: m[1] ?? 'hook', parts: [m[2]!, m[4]!, m[6]!] };
}

export function createSlackService(options: SlackOptions = {}): NotificationService {
  const hooks = trimBase(options.webhookBaseUrl ?? 'https://hooks.slack.com');
  const api = trimBase(options.apiBaseUrl ?? 'https://slack.com');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['slack'], parse: (url) => parseSlack(url, hooks, api, timeoutMs) };
}

function parseSlack(url: URL, hooks: string, api: string, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'slack');
  const { user, password } = userinfo(url);
  let rawToken: string;
  let channel: string;
  let botName = q.get('botname', 'username') ?? '';
  if (url.pathname.length > 1) {
    // The old form: the webhook's three parts as host and path, an optional bot name as user.
    rawToken = url.hostname + url.pathname;
    channel = 'webhook';
    if (botName === '') botName = user;
  } else {
    rawToken = password === undefined ? user : `${user}:${password}`;
    channel = url.hostname;
  }
  const token = parseSlackToken(rawToken);
  if (typeof token === 'string') throw q.bad(token);
  if (channel === '') throw q.bad('the URL names no channel (use "webhook" for a webhook token)');
  const icon = q.get('icon', 'icon_emoji', 'icon_url') ?? '';
  const color = q.get('color') ?? '';
  const configTitle = q.get('title') ?? '';
  const threadTs = q.get('thread_ts') ?? '';
  q.rejectUnknown();

  const secrets = [...token.parts, token.parts.join('-'), token.parts.join('/')];
  const isApi = token.type !== 'hook';
  const query = url.search;
  const redacted = `slack://${token.type}:REDACTED@${channel}${query}`;

  return {
    service: 'slack',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const payload = slackPayload(message, { title: message.title || configTitle, botName, icon, color, threadTs, channel });
      const body = JSON.stringify(payload);
      if (isApi) {
        const answer = await httpCall(
          'slack',
          {
            url: `${api}/api/chat.postMessage`,
            headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token.type}-${token.parts.join('-')}` },
            body,
            timeoutMs,
          },
          signal,
          secrets,
        );
        expectStatus('slack', answer, secrets);
        const res = jsonOf(answer.body) as { ok?: unknown; error?: unknown } | undefined;
        if (res?.ok !== true) {
          const why = typeof res?.error === 'string' ? res.error : `unexpected answer${excerpt(answer.body)}`;
          throw notificationFailed('slack', scrub(`Slack API refused the message: ${why}`, secrets));
        }
        return;
      }
      const answer = await httpCall(
        'slack',
        { url: `${hooks}/services/${token.parts.join('/')}`, headers: { 'Content-Type': 'application/json' }, body, timeoutMs },
        signal,
        secrets,
      );
      // A webhook answers `ok` (or nothing with 200); anything else is its error text.
      const text = answer.body.trim();
      if (text === 'ok' || (text === '' && answer.status === 200)) return;
      expectStatus('slack', answer, secrets, []);
    },
  };
}

interface SlackSettings {
  readonly title: string;
  readonly botName: string;
  readonly icon: string;
  readonly color: string;
  readonly threadTs: string;
  readonly channel: string;
}

/** The chat.postMessage / webhook body: title as text, one attachment per line (at most 100). */
export function slackPayload(message: NotificationMessage, s: SlackSettings): Record<string, unknown> {
  const attachments: Array<{ text: string; color?: string }> = [];
  for (const line of message.body.split('\n')) {
    if (attachments.length >= MAX_ATTACHMENTS) attachments[MAX_ATTACHMENTS - 1]!.text += `\n${line}`;
    else attachments.push({ text: line, ...(s.color ? { color: s.color } : {}) });
  }
  if (attachments.length > 0 && attachments[attachments.length - 1]!.text === '') attachments.pop();
  const payload: Record<string, unknown> = { text: s.title };
  if (s.botName) payload.username = s.botName;
  if (attachments.length > 0) payload.attachments = attachments;
  if (s.threadTs) payload.thread_ts = s.threadTs;
  if (s.channel !== 'webhook') payload.channel = s.channel;
  if (s.icon) payload[/https?:\/\//.test(s.icon) ? 'icon_url' : 'icon_emoji'] = s.icon;
  return payload;
}
