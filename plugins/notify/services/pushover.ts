// `pushover://shoutrrr:<api token>@<user key>/?devices=…`: Pushover's messages API, a form post
// (docs/notifications.md#services).
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';
import { DEFAULT_TIMEOUT_MS, expectStatus, httpCall, trimBase } from './http.js';
import { UrlQuery, userinfo } from './query.js';

export interface PushoverOptions {
  /** The real `https://api.pushover.net` unless a test says otherwise. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
}

export function createPushoverService(options: PushoverOptions = {}): NotificationService {
  const base = trimBase(options.baseUrl ?? 'https://api.pushover.net');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return { schemes: ['pushover'], parse: (url) => parsePushover(url, base, timeoutMs) };
}

function parsePushover(url: URL, base: string, timeoutMs: number): NotificationSender {
  const q = new UrlQuery(url, 'pushover');
  const userKey = decodeURIComponent(url.hostname);
  const { user, password } = userinfo(url);
  const token = password ?? '';
  if (userKey === '') throw q.bad('the URL has no user key (pushover://shoutrrr:<token>@<user key>)');
  if (token === '') throw q.bad('the URL has no API token (pushover://shoutrrr:<token>@<user key>)');
  const devices = q.list('devices');
  const priority = q.int('priority', 0, -128, 127);
  const configTitle = q.get('title') ?? '';
  if ((q.get('encryptionkey', 'key') ?? '') !== '') throw q.bad('end-to-end encryption (encryptionkey) is not supported');
  q.rejectUnknown();

  const secrets = [token, userKey];
  const redacted = `pushover://${encodeURIComponent(user)}:REDACTED@REDACTED/${url.search}`;

  return {
    service: 'pushover',
    redacted,
    async send(message: NotificationMessage, signal: AbortSignal): Promise<void> {
      const form = new URLSearchParams({ device: devices.join(','), user: userKey, token, message: message.body });
      const title = message.title || configTitle;
      if (title !== '') form.set('title', title);
      // Priority 2 (emergency) needs retry parameters shoutrrr does not send; it is left out, as there.
      if (priority >= -2 && priority <= 1) form.set('priority', String(priority));
      const answer = await httpCall(
        'pushover',
        { url: `${base}/1/messages.json`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form.toString(), timeoutMs },
        signal,
        secrets,
      );
      expectStatus('pushover', answer, secrets, [200]);
    },
  };
}
