// Watchtower options Tidewatch accepts but does not act on (watchtower.md §1.1–1.6). A Watchtower user's
// environment or command line must not make Tidewatch exit 2, so each one is parsed (with Watchtower's value
// rules, so a value Watchtower refused is still refused), kept in the config, and named in one startup
// warning through IGNORED_WATCHTOWER_OPTIONS. Notifications are a plugin's job in Tidewatch.

import { enumParser, integerParser, listParser, parseBoolean, parseString, splitComma, splitCommaOrSpace, splitUrls } from './parsers.js';
import type { CompatOptionValues, OptionName, OptionTable } from './types.js';

const group = 'Watchtower compatibility (accepted, not implemented)' as const;
const bool = { kind: 'boolean', default: false, parse: parseBoolean, group } as const;
const str = { kind: 'string', valueName: '<value>', default: '', parse: parseString, group } as const;
const secretStr = { ...str, valueName: '<value|file>', secret: true } as const;
const noNames: string[] = [];
const names = { kind: 'list', valueName: '<names>', default: noNames, parse: listParser(splitCommaOrSpace), group } as const;
const labels = { kind: 'list', valueName: '<key=value,...>', default: noNames, parse: listParser(splitComma), group } as const;

/** Notification URL files hold one URL per line; `#` lines are comments (as Watchtower reads them). */
const urlLines = (content: string): string =>
  content
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .join(' ');

export const COMPAT_OPTIONS: OptionTable<CompatOptionValues> = {
  porcelain: {
    name: 'porcelain', short: 'P', kind: 'enum', valueName: '<v1|json>', default: '', parse: enumParser(['', 'v1', 'json']),
    description: 'Machine-readable run reports (v1 or json).', group,
  },
  selfUpdateOrchestrator: {
    name: 'self-update-orchestrator', env: null, ...bool, hidden: true,
    description: "Watchtower's internal self-update helper.",
  },
  monitorImageNames: { name: 'monitor-image-names', ...names, description: 'Only watch containers whose image matches.' },
  skipImageNames: { name: 'skip-image-names', ...names, description: 'Skip containers whose image matches.' },
  enableContainersByLabel: {
    name: 'enable-containers-by-label', ...labels, description: 'Only watch containers with any of these labels.',
  },
  disableContainersByLabel: {
    name: 'disable-containers-by-label', ...labels, description: 'Skip containers with any of these labels.',
  },
  ephemeralSelfUpdate: {
    name: 'ephemeral-self-update', ...bool, description: 'Self-update through a short-lived helper container.',
  },
  warnOnHeadFailure: {
    name: 'warn-on-head-failure', kind: 'enum', valueName: '<always|never|auto>', default: 'auto',
    parse: enumParser(['always', 'never', 'auto'], { '': 'auto' }),
    description: 'When a failed digest check is logged as a warning.', group,
  },
  registryTlsMinVersion: {
    name: 'registry-tls-min-version', kind: 'enum', valueName: '<version>', default: 'TLS1.2',
    parse: enumParser(['TLS1.0', 'TLS1.1', 'TLS1.2', 'TLS1.3']),
    description: 'Minimum TLS version towards registries.', group,
  },
  disableMemorySwappiness: {
    name: 'disable-memory-swappiness', ...bool, description: 'Podman: drop MemorySwappiness when recreating.',
  },
  cpuCopyMode: {
    name: 'cpu-copy-mode', kind: 'enum', valueName: '<auto|full|none>', default: 'auto',
    parse: enumParser(['auto', 'full', 'none']), description: 'Which CPU limits are copied when recreating.', group,
  },
  notificationUrl: {
    name: 'notification-url', kind: 'list', valueName: '<urls|file>', default: [], parse: listParser(splitUrls),
    join: ' ', secret: true, fromSecretFile: urlLines, description: 'Shoutrrr notification URLs.', group,
  },
  notificationsLevel: { name: 'notifications-level', ...str, default: 'info', description: 'Minimum level notified.' },
  notificationsDelay: {
    name: 'notifications-delay', kind: 'integer', valueName: '<seconds>', default: 0, parse: integerParser(0),
    description: 'Seconds to wait before notifying.', group,
  },
  notificationsHostname: { name: 'notifications-hostname', ...str, description: 'Host name in notification titles.' },
  notificationTemplate: { name: 'notification-template', ...str, description: 'Notification template or its name.' },
  notificationTemplateFile: { name: 'notification-template-file', ...str, description: 'File holding the template.' },
  notificationReport: { name: 'notification-report', ...bool, description: 'Use the session report in templates.' },
  notificationTitleTag: { name: 'notification-title-tag', ...str, description: 'Notification title prefix.' },
  notificationSkipTitle: { name: 'notification-skip-title', ...bool, description: 'Send notifications without a title.' },
  notificationLogStdout: { name: 'notification-log-stdout', ...bool, description: 'Send logger:// output to stdout.' },
  notificationSplitByContainer: {
    name: 'notification-split-by-container', ...bool, description: 'One notification per container.',
  },
  notifications: {
    name: 'notifications', short: 'n', ...names, valueName: '<types>',
    description: 'Deprecated notification types (email, slack, msteams, gotify).',
  },
  notificationEmailFrom: { name: 'notification-email-from', ...str, description: 'Deprecated e-mail notifier.' },
  notificationEmailTo: { name: 'notification-email-to', ...str, description: 'Deprecated e-mail notifier.' },
  notificationEmailServer: { name: 'notification-email-server', ...str, description: 'Deprecated e-mail notifier.' },
  notificationEmailServerPort: {
    name: 'notification-email-server-port', kind: 'integer', valueName: '<port>', default: 25,
    parse: integerParser(0, 65535), description: 'Deprecated e-mail notifier.', group,
  },
  notificationEmailServerTlsSkipVerify: {
    name: 'notification-email-server-tls-skip-verify', ...bool, description: 'Deprecated e-mail notifier.',
  },
  notificationEmailServerUser: { name: 'notification-email-server-user', ...str, description: 'Deprecated e-mail notifier.' },
  notificationEmailServerPassword: {
    name: 'notification-email-server-password', ...secretStr, description: 'Deprecated e-mail notifier.',
  },
  notificationEmailDelay: {
    name: 'notification-email-delay', kind: 'integer', valueName: '<seconds>', default: 0, parse: integerParser(0),
    description: 'Deprecated e-mail notifier.', group,
  },
  notificationEmailSubjecttag: { name: 'notification-email-subjecttag', ...str, description: 'Deprecated e-mail notifier.' },
  notificationSlackHookUrl: { name: 'notification-slack-hook-url', ...secretStr, description: 'Deprecated Slack notifier.' },
  notificationSlackIdentifier: {
    name: 'notification-slack-identifier', ...str, default: 'watchtower', description: 'Deprecated Slack notifier.',
  },
  notificationSlackChannel: { name: 'notification-slack-channel', ...str, description: 'Deprecated Slack notifier.' },
  notificationSlackIconEmoji: { name: 'notification-slack-icon-emoji', ...str, description: 'Deprecated Slack notifier.' },
  notificationSlackIconUrl: { name: 'notification-slack-icon-url', ...str, description: 'Deprecated Slack notifier.' },
  notificationMsteamsHook: {
    name: 'notification-msteams-hook', watchtowerEnv: 'NOTIFICATION_MSTEAMS_HOOK_URL', ...secretStr,
    description: 'Deprecated Microsoft Teams notifier.',
  },
  notificationGotifyUrl: { name: 'notification-gotify-url', ...str, description: 'Deprecated Gotify notifier.' },
  notificationGotifyToken: { name: 'notification-gotify-token', ...secretStr, description: 'Deprecated Gotify notifier.' },
  notificationGotifyTlsSkipVerify: {
    name: 'notification-gotify-tls-skip-verify', ...bool, description: 'Deprecated Gotify notifier.',
  },
};

/**
 * Options accepted for Watchtower compatibility that change nothing in Tidewatch. When any was set, the server
 * logs one warning naming them (ResolvedConfig.ignoredSet). Remove a name here once something implements it.
 */
export const IGNORED_WATCHTOWER_OPTIONS: readonly OptionName[] = Object.freeze(
  Object.values(COMPAT_OPTIONS).map((o) => o.name),
);
