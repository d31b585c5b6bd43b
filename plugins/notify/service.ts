// One notification service (a URL scheme, as shoutrrr names them: docs/notifications.md#services).
// A service parses its URLs once, at start-up, into a sender; a sender delivers one message. Each service
// is a small module behind this interface, so a third-party plugin can add a scheme by providing
// another factory (docs/notifications.md#adding-a-service).

/** What every service delivers: a title (may be empty) and a rendered body. */
export interface NotificationMessage {
  readonly title: string;
  readonly body: string;
  /**
   * The template data the body was rendered from (docs/notifications.md#templates), for services
   * that can send structured JSON instead of text (`generic` with `template=json`).
   */
  readonly data?: unknown;
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
