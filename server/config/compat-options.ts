// Watchtower options Tidewatch accepts but does not act on. A Watchtower user's environment or command
// line must not make Tidewatch exit 2, so each one is parsed (with Watchtower's value rules, so a value
// Watchtower refused is still refused), shown in `/v1/config`, and named in one startup warning. A plugin
// that implements one declares it itself, and it leaves this list.
import { option } from '../../core/index.js';

const group = 'Watchtower compatibility (accepted, not implemented)';
const str = (flag: string, description: string, extra: { default?: string; watchtowerEnv?: string } = {}) =>
  option.string({ flag, group, description, ...extra });
const secret = (flag: string, description: string, extra: { watchtowerEnv?: string } = {}) =>
  option.string({ flag, group, description, secret: true, valueName: '<value|file>', ...extra });
const bool = (flag: string, description: string, extra: { env?: null; hidden?: boolean } = {}) =>
  option.boolean({ flag, group, description, ...extra });

/** Notification URL files hold one URL per line; `#` lines are comments (as Watchtower reads them). */
const urlLines = (content: string): string =>
  content
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .join(' ');

const EMAIL = 'Deprecated e-mail notifier.';
const SLACK = 'Deprecated Slack notifier.';
const GOTIFY = 'Deprecated Gotify notifier.';

export const COMPAT_OPTIONS = {
  porcelain: option.enum({
    flag: 'porcelain', short: 'P', values: ['', 'v1', 'json'], default: '', valueName: '<v1|json>', group,
    description: 'Machine-readable run reports (v1 or json).',
  }),
  selfUpdateOrchestrator: bool('self-update-orchestrator', "Watchtower's internal self-update helper.", { env: null, hidden: true }),
  monitorImageNames: option.list({ flag: 'monitor-image-names', valueName: '<names>', group, description: 'Only watch containers whose image matches.' }),
  skipImageNames: option.list({ flag: 'skip-image-names', valueName: '<names>', group, description: 'Skip containers whose image matches.' }),
  enableContainersByLabel: option.list({
    flag: 'enable-containers-by-label', split: 'comma', valueName: '<key=value,...>', group,
    description: 'Only watch containers with any of these labels.',
  }),
  disableContainersByLabel: option.list({
    flag: 'disable-containers-by-label', split: 'comma', valueName: '<key=value,...>', group,
    description: 'Skip containers with any of these labels.',
  }),
  ephemeralSelfUpdate: bool('ephemeral-self-update', 'Self-update through a short-lived helper container.'),
  warnOnHeadFailure: option.enum({
    flag: 'warn-on-head-failure', values: ['always', 'never', 'auto'], default: 'auto', aliases: { '': 'auto' }, group,
    valueName: '<always|never|auto>', description: 'When a failed digest check is logged as a warning.',
  }),
  registryTlsMinVersion: option.enum({
    flag: 'registry-tls-min-version', values: ['TLS1.0', 'TLS1.1', 'TLS1.2', 'TLS1.3'], default: 'TLS1.2', group,
    valueName: '<version>', description: 'Minimum TLS version towards registries.',
  }),
  disableMemorySwappiness: bool('disable-memory-swappiness', 'Podman: drop MemorySwappiness when recreating.'),
  cpuCopyMode: option.enum({
    flag: 'cpu-copy-mode', values: ['auto', 'full', 'none'], default: 'auto', valueName: '<auto|full|none>', group,
    description: 'Which CPU limits are copied when recreating.',
  }),
  notificationUrl: option.list({
    flag: 'notification-url', split: 'urls', join: ' ', valueName: '<urls|file>', secret: true, fromSecretFile: urlLines,
    group, description: 'Shoutrrr notification URLs.',
  }),
  notificationsLevel: str('notifications-level', 'Minimum level notified.', { default: 'info' }),
  notificationsDelay: option.integer({
    flag: 'notifications-delay', valueName: '<seconds>', default: 0, group, description: 'Seconds to wait before notifying.',
  }),
  notificationsHostname: str('notifications-hostname', 'Host name in notification titles.'),
  notificationTemplate: str('notification-template', 'Notification template or its name.'),
  notificationTemplateFile: str('notification-template-file', 'File holding the template.'),
  notificationReport: bool('notification-report', 'Use the session report in templates.'),
  notificationTitleTag: str('notification-title-tag', 'Notification title prefix.'),
  notificationSkipTitle: bool('notification-skip-title', 'Send notifications without a title.'),
  notificationLogStdout: bool('notification-log-stdout', 'Send logger:// output to stdout.'),
  notificationSplitByContainer: bool('notification-split-by-container', 'One notification per container.'),
  notifications: option.list({
    flag: 'notifications', short: 'n', valueName: '<types>', group,
    description: 'Deprecated notification types (email, slack, msteams, gotify).',
  }),
  notificationEmailFrom: str('notification-email-from', EMAIL),
  notificationEmailTo: str('notification-email-to', EMAIL),
  notificationEmailServer: str('notification-email-server', EMAIL),
  notificationEmailServerPort: option.integer({
    flag: 'notification-email-server-port', valueName: '<port>', default: 25, max: 65535, group, description: EMAIL,
  }),
  notificationEmailServerTlsSkipVerify: bool('notification-email-server-tls-skip-verify', EMAIL),
  notificationEmailServerUser: str('notification-email-server-user', EMAIL),
  notificationEmailServerPassword: secret('notification-email-server-password', EMAIL),
  notificationEmailDelay: option.integer({
    flag: 'notification-email-delay', valueName: '<seconds>', default: 0, group, description: EMAIL,
  }),
  notificationEmailSubjecttag: str('notification-email-subjecttag', EMAIL),
  notificationSlackHookUrl: secret('notification-slack-hook-url', SLACK),
  notificationSlackIdentifier: str('notification-slack-identifier', SLACK, { default: 'watchtower' }),
  notificationSlackChannel: str('notification-slack-channel', SLACK),
  notificationSlackIconEmoji: str('notification-slack-icon-emoji', SLACK),
  notificationSlackIconUrl: str('notification-slack-icon-url', SLACK),
  notificationMsteamsHook: secret('notification-msteams-hook', 'Deprecated Microsoft Teams notifier.', {
    watchtowerEnv: 'NOTIFICATION_MSTEAMS_HOOK_URL',
  }),
  notificationGotifyUrl: str('notification-gotify-url', GOTIFY),
  notificationGotifyToken: secret('notification-gotify-token', GOTIFY),
  notificationGotifyTlsSkipVerify: bool('notification-gotify-tls-skip-verify', GOTIFY),
};

/** Their flags, for the one startup warning naming those that were set. */
export const IGNORED_WATCHTOWER_OPTIONS: readonly string[] = Object.freeze(Object.values(COMPAT_OPTIONS).map((o) => o.flag));
