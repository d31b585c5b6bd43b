// The notify plugin at work (docs/notifications.md): URLs parsed (a bad one exits 2 naming
// --notification-url and the scheme, never the credentials), the template compiled (a parse error exits
// 2 naming the option), the announcements file opened, and every finished run handed to the notifier.
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { notificationServiceKey, type NotificationService } from './service.js';
import { invalidOptions, errorMessage, type TidewatchCore } from '../../core/index.js';
import { AnnouncedUpdates } from './announced.js';
import { legacyNotificationUrls } from './legacy.js';
import { Notifier } from './notifier.js';
import type { NotifyOptionValues } from './options.js';
import { BUILTIN_SERVICES, createLoggerService } from './services/index.js';
import type { LoggerOptions } from './services/logger.js';
import { compileTemplate } from './template/index.js';
import { approvalRenderer, messageRenderer, rolloutHaltRenderer } from './render.js';
import { parseNotificationUrls } from './urls.js';

const PLUGIN_NAME = 'notify';

/**
 * Built-in schemes (`logger://` into the process log, or to stdout with --notification-log-stdout or
 * --porcelain), then any another plugin provides for a scheme the URLs use.
 */
function servicesFor(core: TidewatchCore, urls: readonly string[], loggerOptions: LoggerOptions): NotificationService[] {
  const services = [...BUILTIN_SERVICES.filter((s) => !s.schemes.includes('logger')), createLoggerService(loggerOptions)];
  const known = new Set(services.flatMap((s) => s.schemes));
  for (const url of urls) {
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
    if (!scheme || known.has(scheme)) continue;
    const extra = core.services.get(notificationServiceKey(scheme));
    if (extra) {
      services.push(extra);
      for (const s of extra.schemes) known.add(s);
    }
  }
  return services;
}

/**
 * The template to render: a file, else an explicit --notification-template, else --porcelain's (the fork only sets
 * the template when none is given: docs/notifications.md), else the default.
 */
export async function templateSource(options: NotifyOptionValues): Promise<string> {
  if (options.notificationTemplateFile) {
    try {
      return await readFile(options.notificationTemplateFile, 'utf8');
    } catch (err) {
      throw invalidOptions('notification-template-file', `cannot read ${options.notificationTemplateFile}: ${errorMessage(err)}`);
    }
  }
  if (options.notificationTemplate) return options.notificationTemplate;
  if (options.porcelain === 'v1') return 'porcelain.v1.summary-no-log';
  if (options.porcelain === 'json') return 'porcelain.json';
  return options.notificationReport ? 'default' : 'default-legacy';
}

export async function startNotify(core: TidewatchCore, options: NotifyOptionValues): Promise<void> {
  const logger = core.logger.child({ plugin: PLUGIN_NAME });
  const urls = [
    ...options.notificationUrl,
    ...legacyNotificationUrls(options),
    // Watchtower's porcelain mode writes its report through the logger service, to stdout.
    ...(options.porcelain ? ['logger://'] : []),
  ];
  const toLog = (text: string) => logger.info({ notification: text }, 'notification');
  const toStdout = options.notificationLogStdout || options.porcelain !== '';
  const senders = parseNotificationUrls(urls, servicesFor(core, urls, toStdout ? {} : { write: toLog }));
  const source = await templateSource(options);
  let template: ReturnType<typeof compileTemplate>;
  try {
    template = compileTemplate(source);
  } catch (err) {
    const option = options.notificationTemplateFile ? 'notification-template-file' : 'notification-template';
    throw invalidOptions(option, errorMessage(err));
  }
  const announced = await AnnouncedUpdates.open(options.dataDir, logger);
  const notifier = new Notifier({
    senders,
    level: options.notificationsLevel,
    splitByContainer: options.notificationSplitByContainer,
    delayMs: options.notificationsDelay * 1000,
    announced,
    logger,
    report: (service, result) => core.emit('notification', { service, result }),
    render: messageRenderer(template, {
      host: options.notificationsHostname || hostname(),
      titleTag: options.notificationTitleTag,
      skipTitle: options.notificationSkipTitle,
      withReport: options.notificationReport || options.porcelain !== '',
      reportChecks: options.porcelain !== '',
    }),
  });
  const renderApproval = approvalRenderer(template, {
    host: options.notificationsHostname || hostname(),
    titleTag: options.notificationTitleTag,
    skipTitle: options.notificationSkipTitle,
    withReport: options.notificationReport || options.porcelain !== '',
  });
  const renderHalt = rolloutHaltRenderer(template, {
    host: options.notificationsHostname || hostname(),
    titleTag: options.notificationTitleTag,
    skipTitle: options.notificationSkipTitle,
    withReport: options.notificationReport || options.porcelain !== '',
  });
  core.hooks.event.tap(PLUGIN_NAME, (event) => {
    if (event.type === 'run_report') notifier.onRunReport(event.data);
    // A staged rollout halted (docs/rollouts.md#halts): once, when it halts.
    else if (event.type === 'rollout_halted') {
      const { data } = event;
      try {
        notifier.send(renderHalt({ image: data.image, host: data.host, container: data.container, stage: data.stage, error: data.error, rolloutId: data.rollout_id }));
      } catch (err) {
        logger.error({ err: errorMessage(err) }, 'notification template failed on a halted rollout; nothing sent');
      }
    }
    // A new pending approval, once (docs/policies.md#notifications-and-home-assistant).
    else if (event.type === 'approval' && event.data.entry.state === 'pending') {
      const { entry } = event.data;
      try {
        notifier.send(
          renderApproval({
            container: entry.container,
            image: entry.image,
            latestDigest: entry.latest_digest,
            url: approvalUrl(options.publicUrl, entry.container),
            ...(entry.current_tag ? { currentTag: entry.current_tag } : {}),
            ...(entry.latest_tag ? { latestTag: entry.latest_tag } : {}),
            ...(entry.update_kind ? { updateKind: entry.update_kind } : {}),
          }),
        );
      } catch (err) {
        logger.error({ err: errorMessage(err) }, 'notification template failed on an approval; nothing sent');
      }
    }
  });
  core.onClose(() => notifier.close());
  logger.info(
    { urls: senders.map((s) => s.redacted), notifications_level: options.notificationsLevel, announced: announced.file },
    'notifications enabled',
  );
}

/** The dashboard row of a container under --public-url (docs/dashboard.md): '' without one. */
export function approvalUrl(publicUrl: string, container: string): string {
  if (!publicUrl) return '';
  return new URL(`ui/#container=${encodeURIComponent(container)}`, publicUrl.endsWith('/') ? publicUrl : `${publicUrl}/`).toString();
}
