// `matrix://[user:]<password or access token>@<host>[:port]/[?rooms=…]`: the Matrix client-server API v3
// (docs/notifications.md#services). Without a user the password is the access token; with one, the first
// send logs in (m.login.password) and keeps the token. Rooms not given: every joined room.
import { createHash, randomBytes } from 'node:crypto';
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, excerpt, httpCall, jsonOf, notificationFailed, scrub } from './http.js';
import { UrlQuery, redactUrl, userinfo } from './query.js';

export interface MatrixOptions {
  readonly timeoutMs?: number;
}

export function createMatrixService(options: MatrixOptions = {}): NotificationService {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['matrix'], parse: (url) => parseMatrix(url, timeoutMs) };
}

function parseMatrix(url: URL, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'matrix');
  const { user, password } = userinfo(url);
  if (password === undefined || password === '') throw q.bad('no password or access token (matrix://[user:]<password or token>@<host>)');
  if (url.hostname === '') throw q.bad('the URL names no host');
  const disableTls = q.bool('disabletls', false);
  const rooms = q.list(['rooms', 'room']).map((r) => (r.startsWith('#') || r.startsWith('!') ? r : `#${r}`));
  const configTitle = q.get('title') ?? '';
  q.rejectUnknown();

  const origin = `${disableTls ? 'http' : 'https'}://${url.host}`;
  let accessToken = user === '' ? password : '';
  const secrets = (): string[] => [password, accessToken];
  const redacted = redactUrl(url, { password: true });

  async function api(method: string, path: string, body: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (accessToken !== '') headers.Authorization = `Bearer ${accessToken}`;
    const answer = await httpCall(
      'matrix',
      { method, url: `${origin}${path}`, headers, ...(method === 'GET' ? {} : { body: JSON.stringify(body) }), timeoutMs },
      signal,
      secrets(),
    );
    const res = jsonOf(answer.body);
    if (answer.status >= 400 || typeof res !== 'object' || res === null) {
      const err = res as { errcode?: unknown; error?: unknown } | undefined;
      const why = typeof err?.error === 'string' ? `${String(err.errcode ?? '')} ${err.error}`.trim() : `HTTP ${answer.status}${excerpt(answer.body)}`;
      throw notificationFailed('matrix', scrub(`${method} ${path.replace(/\/send\/.*$/, '/send/…')} failed: ${why}`, secrets()));
    }
    return res as Record<string, unknown>;
  }

  async function login(signal: AbortSignal): Promise<void> {
    const flows = await api('GET', '/_matrix/client/v3/login', undefined, signal);
    const types = Array.isArray(flows.flows) ? flows.flows.map((f) => (f as { type?: unknown }).type) : [];
    if (!types.includes('m.login.password')) throw notificationFailed('matrix', 'the server offers no password login (m.login.password)');
    const res = await api(
      'POST',
      '/_matrix/client/v3/login',
      { type: 'm.login.password', identifier: { type: 'm.id.user', user }, password, device_id: deviceId(user, url.hostname) },
      signal,
    );
    if (typeof res.access_token !== 'string' || res.access_token === '') throw notificationFailed('matrix', 'login answered no access token');
    accessToken = res.access_token;
  }

  return {
    service: 'matrix',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      if (accessToken === '') await login(signal);
      const title = (message.title || configTitle).trim();
      const body = title === '' ? message.body : `${title}\n\n${message.body}`;
      let targets = rooms;
      if (targets.length === 0) {
        const joined = await api('GET', '/_matrix/client/v3/joined_rooms', undefined, signal);
        targets = Array.isArray(joined.joined_rooms) ? joined.joined_rooms.filter((r): r is string => typeof r === 'string') : [];
      }
      for (const room of targets) {
        let roomId = room;
        if (!room.startsWith('!')) {
          const joined = await api('POST', `/_matrix/client/v3/join/${encodeURIComponent(room)}`, {}, signal);
          if (typeof joined.room_id !== 'string') throw notificationFailed('matrix', `joining ${room} answered no room id`);
          roomId = joined.room_id;
        }
        const txn = `${Date.now()}-${randomBytes(8).toString('hex')}`;
        await api(
          'PUT',
          `/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message/${txn}`,
          { msgtype: 'm.text', body },
          signal,
        );
      }
    },
  };
}

/** The same device id on every login from this user to this server, so restarts do not pile up devices. */
function deviceId(user: string, host: string): string {
  const digest = createHash('sha256').update(`${user}:${host}`).digest();
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `TW${[...digest.subarray(0, 8)].map((b) => chars[b % chars.length]).join('')}`;
}
