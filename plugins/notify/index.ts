// The notify plugin (docs/notifications.md): Watchtower's notification URLs, templates and reports, sent
// after every run from the core's `event` hook. This file is cheap to load (declarations only, for
// --help and validation); the services, the template engine and the HTTP client load in `apply`.
import { definePlugin } from '../../core/index.js';
import { notifyEnabled, notifyOptions, type NotifyOptionValues } from './options.js';

export const PLUGIN_NAME = 'notify';

export type NotifyPluginOptions = Partial<NotifyOptionValues>;
export type { NotificationMessage, NotificationSender, NotificationService } from './service.js';
export { notificationServiceKey } from './service.js';

export const notifyPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: notifyOptions,
  enabled: notifyEnabled,
  // The URLs and the template, as start-up reads them, without the announcements file or a sender.
  async validate(options) {
    const { validateNotify } = await import('./validate.js');
    return validateNotify(options);
  },
  async apply(core, options) {
    const { startNotify } = await import('./start.js');
    await startNotify(core, options);
  },
});
