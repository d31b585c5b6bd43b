// Watchtower's deprecated `--notifications` kinds (email, slack, msteams, gotify) and their old options,
// turned into the shoutrrr URLs Watchtower itself generates from them (docs/notifications.md#services),
// so an old configuration keeps notifying. `shoutrrr` in the list means "the URLs given", as there.
import { invalidOptions } from '../../core/index.js';

export interface LegacyNotificationOptions {
  readonly notifications: readonly string[];
  readonly notificationEmailFrom?: string;
  readonly notificationEmailTo?: string;
  readonly notificationEmailServer?: string;
  readonly notificationEmailServerPort?: number;
  readonly notificationEmailServerUser?: string;
  readonly notificationEmailServerPassword?: string;
  readonly notificationEmailServerTlsSkipVerify?: boolean;
  /** Seconds; a send delay, not part of the URL (the plugin applies it). */
  readonly notificationEmailDelay?: number;
  /** A title tag fallback, not part of the URL (the plugin applies it). */
  readonly notificationEmailSubjecttag?: string;
  readonly notificationSlackHookUrl?: string;
  readonly notificationSlackIdentifier?: string;
  readonly notificationSlackChannel?: string;
  readonly notificationSlackIconEmoji?: string;
  readonly notificationSlackIconUrl?: string;
  readonly notificationMsteamsHook?: string;
  readonly notificationGotifyUrl?: string;
  readonly notificationGotifyToken?: string;
  readonly notificationGotifyTlsSkipVerify?: boolean;
}

/** Watchtower's colour for its legacy notifiers. */
const COLOR_HEX = '#406170';
const COLOR_INT = '0x406170';

const query = (pairs: Array<[string, string]>): string => new URLSearchParams(pairs).toString();

/** One shoutrrr URL per legacy kind, in the order given. */
export function legacyNotificationUrls(o: LegacyNotificationOptions): string[] {
  const urls: string[] = [];
  for (const raw of o.notifications) {
    const kind = raw.trim().toLowerCase();
    if (kind === '' || kind === 'shoutrrr') continue;
    switch (kind) {
      case 'email': urls.push(emailUrl(o)); break;
      case 'slack': urls.push(slackUrl(o)); break;
      case 'msteams': urls.push(teamsUrl(o)); break;
      case 'gotify': urls.push(gotifyUrl(o)); break;
      default:
        throw invalidOptions('notifications', `unknown notification type "${raw.trim()}" (email, slack, msteams, gotify, shoutrrr)`);
    }
  }
  return urls;
}

function need(value: string | undefined, option: string, what: string): string {
  if (!value) throw invalidOptions(option, `--notifications=${what} needs --${option}`);
  return value;
}

function emailUrl(o: LegacyNotificationOptions): string {
  const from = need(o.notificationEmailFrom, 'notification-email-from', 'email');
  const to = need(o.notificationEmailTo, 'notification-email-to', 'email');
  const server = need(o.notificationEmailServer, 'notification-email-server', 'email');
  const port = o.notificationEmailServerPort ?? 25;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw invalidOptions('notification-email-server-port', 'the port must be 0-65535');
  const user = o.notificationEmailServerUser ?? '';
  const password = o.notificationEmailServerPassword ?? '';
  const skip = o.notificationEmailServerTlsSkipVerify === true;
  const auth = password !== '' ? `${encodeURIComponent(user)}:${encodeURIComponent(password)}@` : user !== '' ? `${encodeURIComponent(user)}@` : '';
  return `smtp://${auth}${server}:${port}/?${query([
    ['auth', user !== '' ? 'Plain' : 'None'],
    ['clienthost', 'localhost'],
    ['encryption', skip ? 'None' : 'Auto'],
    ['fromaddress', from],
    ['fromname', 'Watchtower'],
    ['subject', ''],
    ['toaddresses', to],
    ['usehtml', 'No'],
    ['usestarttls', skip ? 'No' : 'Yes'],
    ['timeout', '10s'],
  ])}`;
}

function slackUrl(o: LegacyNotificationOptions): string {
  const hook = need(o.notificationSlackHookUrl, 'notification-slack-hook-url', 'slack');
  const username = o.notificationSlackIdentifier ?? 'watchtower';
  const parts = hook.replace(/\/+$/, '').replace(/^https:\/\//, '').split('/');
  if (parts[0] === 'discord.com' || parts[0] === 'discordapp.com') {
    // A Discord webhook's Slack-compatible URL (…/<id>/<token>/slack): Watchtower sends it as discord.
    const id = parts[parts.length - 3];
    const token = parts[parts.length - 2];
    if (!id || !token || parts.length < 4) throw invalidOptions('notification-slack-hook-url', 'not a Discord webhook URL ending in /slack');
    const pairs: Array<[string, string]> = [];
    if (o.notificationSlackIconUrl) pairs.push(['avatar', o.notificationSlackIconUrl]);
    pairs.push(['color', COLOR_INT]);
    if (username) pairs.push(['username', username]);
    return `discord://${encodeURIComponent(token)}@${id}?${query(pairs)}`;
  }
  const token = hook.replace('https://hooks.slack.com/services/', '');
  const m = /^([A-Z0-9]{9,})\/([A-Z0-9]{9,})\/([A-Za-z0-9]{24,})$/.exec(token);
  if (!m) throw invalidOptions('notification-slack-hook-url', 'not a Slack webhook URL (https://hooks.slack.com/services/T…/B…/…)');
  const pairs: Array<[string, string]> = [];
  if (username) pairs.push(['botname', username]);
  pairs.push(['color', COLOR_HEX]);
  const icon = o.notificationSlackIconUrl || o.notificationSlackIconEmoji || '';
  if (icon) pairs.push(['icon', icon]);
  // Watchtower ignores the legacy channel option: a webhook posts to the channel it was made for.
  return `slack://hook:${m[1]}-${m[2]}-${m[3]}@webhook?${query(pairs)}`;
}

function teamsUrl(o: LegacyNotificationOptions): string {
  const hook = need(o.notificationMsteamsHook, 'notification-msteams-hook', 'msteams');
  let parsed: URL;
  try {
    parsed = new URL(hook);
  } catch {
    throw invalidOptions('notification-msteams-hook', 'not a URL');
  }
  if (parsed.protocol !== 'https:' || parsed.host === '') throw invalidOptions('notification-msteams-hook', 'expected an https URL');
  return `teams://?${query([['color', COLOR_HEX], ['host', hook]])}`;
}

function gotifyUrl(o: LegacyNotificationOptions): string {
  const raw = need(o.notificationGotifyUrl, 'notification-gotify-url', 'gotify');
  const token = need(o.notificationGotifyToken, 'notification-gotify-token', 'gotify');
  if (!/^https?:\/\//.test(raw)) throw invalidOptions('notification-gotify-url', 'must start with http:// or https://');
  let api: URL;
  try {
    api = new URL(raw);
  } catch {
    throw invalidOptions('notification-gotify-url', 'not a URL');
  }
  const path = api.pathname.replace(/\/+$/, '');
  const pairs: Array<[string, string]> = [];
  if (api.protocol === 'http:') pairs.push(['disabletls', 'Yes']);
  // Watchtower reads this option but never passes it on; here it does what it says.
  if (o.notificationGotifyTlsSkipVerify) pairs.push(['insecureskipverify', 'Yes']);
  return `gotify://${api.host}${path}/${encodeURIComponent(token)}${pairs.length > 0 ? `?${query(pairs)}` : ''}`;
}
