// Notification services (docs/notifications.md#services): a URL scheme parses its URLs once into senders;
// a sender delivers one message. The notify plugin ships the shoutrrr schemes; another plugin adds a
// scheme by providing a service under `notificationServiceKey(scheme)` (docs/notifications.md#adding-a-service).
// The notify plugin's contract (docs/plugins.md#contracts): it lives with the plugin and reaches third parties
// through the contracts entry (contracts/index.ts, `tidewatch/contracts`) and `tidewatch/plugins/notify`.
import { defineService, type ServiceKey } from '../../core/index.js';

/** What every service delivers: a title (may be empty) and a rendered body. */
export interface NotificationMessage {
  readonly title: string;
  readonly body: string;
}

export interface NotificationSender {
  /** The scheme's service name, e.g. `slack`; the `service` label of the notification metrics. */
  readonly service: string;
  /** The URL with every credential replaced by `REDACTED`, for logs and errors. */
  readonly redacted: string;
  /** Delivers one message; rejects on any failure (a non-2xx answer included), never retries itself. */
  send(message: NotificationMessage, signal: AbortSignal): Promise<void>;
}

export interface NotificationService {
  /** The URL schemes it handles, lower case, without `://` (e.g. `generic`, `generic+https`). */
  readonly schemes: readonly string[];
  /**
   * Parses one URL. Throws `invalidNotificationUrl(...)` (never echoing credentials) when a part is
   * missing or bad; the plugin turns that into exit 2 naming `--notification-url` and the scheme.
   */
  parse(url: URL): NotificationSender;
}

/** The key under which a plugin offers the service for `scheme` (lower case, without `://`). */
export function notificationServiceKey(scheme: string): ServiceKey<NotificationService> {
  return defineService<NotificationService>(`notification-service:${scheme.toLowerCase()}`);
}
