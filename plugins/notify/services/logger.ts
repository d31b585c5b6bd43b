// `logger://`: writes each message to the process's output instead of sending it anywhere
// (docs/notifications.md#services), as shoutrrr's logger service writes to its log.
import type { NotificationMessage, NotificationSender, NotificationService } from '../service.js';

export interface LoggerOptions {
  /** Where a message goes; standard output unless the plugin routes it into its log. */
  readonly write?: (text: string) => void;
}

export function createLoggerService(options: LoggerOptions = {}): NotificationService {
  const write = options.write ?? ((text: string) => void process.stdout.write(`${text}\n`));
  return {
    schemes: ['logger'],
    parse: (): NotificationSender => ({
      service: 'logger',
      redacted: 'logger://',
      async send(message: NotificationMessage): Promise<void> {
        write(message.body);
      },
    }),
  };
}
