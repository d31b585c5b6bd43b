// The notify plugin's options: Watchtower's notification flags and variables (docs/notifications.md),
// declared once here. The legacy `--notifications` kinds and their old options are converted to URLs.
import { SHARED_OPTIONS, option, type OptionValues } from '../../core/index.js';

const group = 'Notifications';
const str = (flag: string, description: string, extra: { default?: string; watchtowerEnv?: string } = {}) =>
  option.string({ flag, group, description, ...extra });
const secret = (flag: string, description: string, extra: { watchtowerEnv?: string } = {}) =>
  option.string({ flag, group, description, secret: true, valueName: '<value|file>', ...extra });
const bool = (flag: string, description: string) => option.boolean({ flag, group, description });

/** Notification URL files hold one URL per line; `#` lines are comments (as Watchtower reads them). */
const urlLines = (content: string): string =>
  content
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .join(' ');

/** Watchtower's levels (logrus names), most severe first, and Tidewatch's `updates`. */
export const NOTIFICATION_LEVELS = ['panic', 'fatal', 'error', 'warn', 'info', 'debug', 'trace', 'updates'] as const;
export type NotificationLevel = (typeof NOTIFICATION_LEVELS)[number];

const LEGACY = 'Deprecated: converted to a notification URL.';

export const notifyOptions = {
  notificationUrl: option.list({
    flag: 'notification-url', split: 'urls', join: ' ', valueName: '<urls|file>', secret: true, fromSecretFile: urlLines,
    group, description: 'Notification URLs (shoutrrr formats; repeat, or separate with spaces or commas; or a file, one per line).',
  }),
  notificationsLevel: option.enum({
    flag: 'notifications-level', values: NOTIFICATION_LEVELS, default: 'info', aliases: { warning: 'warn' },
    valueName: '<level>', group,
    description: 'Least severe log entry that is notified; `updates` sends only runs that updated or failed something.',
  }),
  notificationsDelay: option.integer({
    flag: 'notifications-delay', valueName: '<seconds>', default: 0, group, description: 'Seconds to wait before notifying.',
  }),
  notificationsHostname: str('notifications-hostname', 'Host name in notification titles (default: this host\'s name).'),
  notificationTemplate: str('notification-template', 'A Go text/template, or a built-in name: default, default-legacy, porcelain.v1.summary-no-log, json.v1.'),
  notificationTemplateFile: str('notification-template-file', 'File holding the template.'),
  notificationReport: bool('notification-report', 'Give the template the run report (default template: default instead of default-legacy).'),
  notificationTitleTag: str('notification-title-tag', 'Title prefix: [tag] .'),
  notificationSkipTitle: bool('notification-skip-title', 'Send notifications without a title.'),
  notificationLogStdout: bool('notification-log-stdout', 'logger:// writes to stdout instead of the log.'),
  notificationSplitByContainer: bool('notification-split-by-container', 'One notification per updated, restarted or failed container.'),
  porcelain: option.enum({
    flag: 'porcelain', short: 'P', values: ['', 'v1', 'json'], default: '', valueName: '<v1|json>', group,
    description: 'Write a machine-readable report of every run to stdout (v1 or json).',
  }),
  dataDir: SHARED_OPTIONS.dataDir,
  publicUrl: SHARED_OPTIONS.publicUrl,
  notifications: option.list({
    flag: 'notifications', short: 'n', valueName: '<types>', group,
    description: 'Deprecated notification types (email, slack, msteams, gotify), converted to URLs.',
  }),
  notificationEmailFrom: str('notification-email-from', LEGACY),
  notificationEmailTo: str('notification-email-to', LEGACY),
  notificationEmailServer: str('notification-email-server', LEGACY),
  notificationEmailServerPort: option.integer({
    flag: 'notification-email-server-port', valueName: '<port>', default: 25, max: 65535, group, description: LEGACY,
  }),
  notificationEmailServerTlsSkipVerify: bool('notification-email-server-tls-skip-verify', LEGACY),
  notificationEmailServerUser: str('notification-email-server-user', LEGACY),
  notificationEmailServerPassword: secret('notification-email-server-password', LEGACY),
  notificationEmailDelay: option.integer({
    flag: 'notification-email-delay', valueName: '<seconds>', default: 0, group, description: LEGACY,
  }),
  notificationEmailSubjecttag: str('notification-email-subjecttag', LEGACY),
  notificationSlackHookUrl: secret('notification-slack-hook-url', LEGACY),
  notificationSlackIdentifier: str('notification-slack-identifier', LEGACY, { default: 'watchtower' }),
  notificationSlackChannel: str('notification-slack-channel', LEGACY),
  notificationSlackIconEmoji: str('notification-slack-icon-emoji', LEGACY),
  notificationSlackIconUrl: str('notification-slack-icon-url', LEGACY),
  notificationMsteamsHook: secret('notification-msteams-hook', LEGACY, { watchtowerEnv: 'NOTIFICATION_MSTEAMS_HOOK_URL' }),
  notificationGotifyUrl: str('notification-gotify-url', LEGACY),
  notificationGotifyToken: secret('notification-gotify-token', LEGACY),
  notificationGotifyTlsSkipVerify: bool('notification-gotify-tls-skip-verify', LEGACY),
};

export type NotifyOptionValues = OptionValues<typeof notifyOptions>;

/** Off unless something is to be sent somewhere. */
export function notifyEnabled(options: NotifyOptionValues): boolean {
  return options.notificationUrl.length > 0 || options.notifications.length > 0 || options.porcelain !== '';
}
