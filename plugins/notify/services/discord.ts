// `discord://<token>@<webhook id>[/raw]`: a Discord webhook (docs/notifications.md#services). Each line
// of the message becomes an embed (up to 10 per post, the title on the first); a one-line message
// without a title is sent as plain `content`; `/raw` (or `json=yes`) posts the body as the JSON payload.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, expectStatus, httpCall, trimBase } from './http.js';
import { UrlQuery, userinfo } from './query.js';

export interface DiscordOptions {
  /** The real `https://discord.com` unless a test says otherwise. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
}

const CHUNK = 2000;
const TOTAL = 6000;
const MAX_EMBEDS = 10;
const DEFAULT_COLOR = 0x50d9ff;

export function createDiscordService(options: DiscordOptions = {}): NotificationService {
  const base = trimBase(options.baseUrl ?? 'https://discord.com');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['discord'], parse: (url) => parseDiscord(url, base, timeoutMs) };
}

function parseColor(q: UrlQuery, key: string, fallback: number): number {
  const v = q.get(key);
  if (v === undefined || v === '') return fallback;
  const hex = v.trim().replace(/^(0x|#)/i, '');
  if (!/^[0-9a-f]{1,6}$/i.test(hex)) throw q.bad(`parameter "${key}" must be a hex colour`);
  return parseInt(hex, 16);
}

function parseDiscord(url: URL, base: string, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'discord');
  const webhookId = url.hostname;
  const { user: token } = userinfo(url);
  if (url.pathname !== '' && url.pathname !== '/raw') throw q.bad('the only path allowed is /raw');
  if (webhookId === '') throw q.bad('the URL names no webhook id');
  if (token === '') throw q.bad('the URL has no token (discord://<token>@<webhook id>)');
  const configTitle = q.get('title') ?? '';
  const username = q.get('username') ?? '';
  const avatar = q.get('avatar', 'avatarurl') ?? '';
  const color = parseColor(q, 'color', DEFAULT_COLOR);
  for (const k of ['colorerror', 'colorwarn', 'colorinfo', 'colordebug']) parseColor(q, k, 0);
  const splitLines = q.bool('splitlines', true);
  const raw = q.bool('json', false) || url.pathname === '/raw';
  const threadId = (q.get('thread_id') ?? '').trim();
  q.rejectUnknown();

  const endpoint = `${base}/api/webhooks/${encodeURIComponent(webhookId)}/${encodeURIComponent(token)}${
    threadId ? `?thread_id=${encodeURIComponent(threadId)}` : ''
  }`;
  const secrets = [token];
  const redacted = `discord://REDACTED@${webhookId}${raw && url.pathname === '/raw' ? '/raw' : ''}${url.search}`;

  return {
    service: 'discord',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const bodies = raw
        ? [message.body]
        : discordPayloads(message.body, message.title || configTitle, splitLines, color).map((p) =>
            JSON.stringify({ ...p, ...(username ? { username } : {}), ...(avatar ? { avatar_url: avatar } : {}) }),
          );
      for (const body of bodies) {
        const answer = await httpCall(
          'discord',
          { url: endpoint, headers: { 'Content-Type': 'application/json', 'User-Agent': 'tidewatch' }, body, timeoutMs },
          signal,
          secrets,
        );
        expectStatus('discord', answer, secrets, [200, 204]);
      }
    },
  };
}

/** The webhook payloads for a text message: batches of embeds, or one `content` for a lone line. */
export function discordPayloads(text: string, title: string, splitLines: boolean, color: number): Array<Record<string, unknown>> {
  const batches = splitLines ? byLines(text) : byChunks(text);
  return batches.map((items) => {
    if (items.length === 1 && title === '') return { content: items[0] };
    const embeds = items.map((description, i) => ({ ...(i === 0 && title ? { title } : {}), description, color }));
    return { embeds };
  });
}

function byLines(text: string): string[][] {
  const batches: string[][] = [];
  let items: string[] = [];
  let total = 0;
  for (let line of text.split('\n')) {
    if (line === '') continue;
    if ([...line].length > CHUNK) line = `${[...line].slice(0, CHUNK - 6).join('')} [...]`;
    const size = [...line].length;
    if (items.length === MAX_EMBEDS || total + size > TOTAL) {
      batches.push(items);
      items = [];
      total = 0;
    }
    items.push(line);
    total += size;
  }
  if (items.length > 0) batches.push(items);
  return batches;
}

function byChunks(text: string): string[][] {
  const chars = [...text];
  const batches: string[][] = [];
  for (let at = 0; at < chars.length; ) {
    const items: string[] = [];
    let total = 0;
    while (at < chars.length && items.length < MAX_EMBEDS && total + CHUNK <= TOTAL) {
      const piece = chars.slice(at, at + CHUNK).join('');
      items.push(piece);
      at += CHUNK;
      total += [...piece].length;
    }
    batches.push(items);
  }
  return batches;
}
