// Turns `--notification-url` values into senders (docs/notifications.md#services). Every URL is parsed
// once, at start-up; an unknown scheme or a bad part is a configuration error (exit 2) that names the
// option and the scheme and never echoes the URL, which holds credentials.
import { invalidOptions, type ConfigError } from '../../core/index.js';
import type { NotificationSender, NotificationService } from './service.js';

/** The one error a service's `parse` throws: `<scheme>: <what is wrong>`, never a credential. */
export function invalidNotificationUrl(scheme: string, what: string): ConfigError {
  return invalidOptions('notification-url', `${scheme}: ${what}`);
}

/** Schemes whose path may contain an `@` that is data, not the end of user info. */
const PATH_MAY_HOLD_AT = new Set(['pushbullet', 'rocketchat']);

const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(.*)$/s;

/**
 * Shoutrrr URLs are read by Go's URL parser, which differs from WHATWG's in a few ways users rely on:
 * an `@` inside the user info (an e-mail address as SMTP user name), and a `#` that is data, not a
 * fragment (a Matrix room alias, a password). Those are percent-encoded before `new URL` sees them;
 * no service has a fragment.
 */
export function toParseableUrl(raw: string): string {
  const m = SCHEME.exec(raw.trim());
  if (!m) return raw.trim();
  const scheme = m[1]!;
  let rest = m[2]!.replace(/#/g, '%23');
  const queryAt = rest.indexOf('?');
  let beforeQuery = queryAt === -1 ? rest : rest.slice(0, queryAt);
  // Where a path may hold an `@` (a Pushbullet e-mail target, a Rocket.Chat `@user`), the authority ends
  // at the first `/`, as Go reads it.
  if (PATH_MAY_HOLD_AT.has(scheme.toLowerCase()) && beforeQuery.includes('/')) beforeQuery = beforeQuery.slice(0, beforeQuery.indexOf('/'));
  const at = beforeQuery.lastIndexOf('@');
  if (at !== -1) {
    // Everything before the last `@` ahead of the query is user info: escape what would end it early.
    const userinfo = beforeQuery
      .slice(0, at)
      .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
      .replace(/[@/?\\ ]/g, (c) => encodeURIComponent(c));
    rest = userinfo + rest.slice(at);
  }
  return `${scheme}://${rest}`;
}

/** The scheme of a URL string, lower case, or undefined when it has none. */
function schemeOf(raw: string): string | undefined {
  return SCHEME.exec(raw.trim())?.[1]?.toLowerCase();
}

/** One sender per URL, dispatched by scheme to the service that handles it. */
export function parseNotificationUrls(urls: readonly string[], services: readonly NotificationService[]): NotificationSender[] {
  const byScheme = new Map<string, NotificationService>();
  for (const service of services) for (const scheme of service.schemes) if (!byScheme.has(scheme)) byScheme.set(scheme, service);
  return urls.map((raw) => {
    const scheme = schemeOf(raw);
    if (scheme === undefined) throw invalidOptions('notification-url', 'a URL without a scheme (expected <service>://...)');
    const service = byScheme.get(scheme);
    if (!service) throw invalidNotificationUrl(scheme, `unknown service (known: ${[...byScheme.keys()].sort().join(', ')})`);
    let url: URL;
    try {
      url = new URL(toParseableUrl(raw));
    } catch {
      throw invalidNotificationUrl(scheme, 'not a valid URL (percent-encode special characters in credentials)');
    }
    return service.parse(url);
  });
}
