// `tidewatch check-config` for notifications (docs/configuration.md#checking-a-configuration): the same URL
// parsing and template compilation start-up does (plugins/notify/start.ts), with nothing opened or sent. A
// scheme no built-in service handles may be another plugin's, which only registers it when it starts: that
// URL is named in a warning by its scheme, never checked here and never echoed (it holds credentials).
import { errorMessage, invalidOptions } from '../../core/index.js';
import { legacyNotificationUrls } from './legacy.js';
import type { NotifyOptionValues } from './options.js';
import { BUILTIN_SERVICES } from './services/index.js';
import { templateSource } from './start.js';
import { compileTemplate } from './template/index.js';
import { parseNotificationUrls } from './urls.js';

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;

export async function validateNotify(options: NotifyOptionValues): Promise<string[]> {
  const warnings: string[] = [];
  const known = new Set(BUILTIN_SERVICES.flatMap((s) => s.schemes));
  const urls = [...options.notificationUrl, ...legacyNotificationUrls(options)].filter((url) => {
    const scheme = SCHEME.exec(url.trim())?.[1]?.toLowerCase();
    if (scheme === undefined || known.has(scheme)) return true;
    warnings.push(`--notification-url: ${scheme}: no built-in service; a plugin must provide it (checked when the service starts)`);
    return false;
  });
  parseNotificationUrls(urls, BUILTIN_SERVICES);
  try {
    compileTemplate(await templateSource(options));
  } catch (err) {
    throw invalidOptions(options.notificationTemplateFile ? 'notification-template-file' : 'notification-template', errorMessage(err));
  }
  return warnings;
}
