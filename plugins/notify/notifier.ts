// From a finished run to messages on their way (docs/notifications.md): the run's outcome, its entries
// filtered by level, pending updates already announced left out, one message (or one per container),
// rendered by the template; a message that renders empty is not sent. Delivery happens off the run's
// path, in order, one message at a time to every URL at once; close() waits for what is queued.
import { errorMessage, type EventPayloads, type Logger } from '../../core/index.js';
import type { AnnouncedUpdates } from './announced.js';
import { deliver, type DeliveryPolicy } from './deliver.js';
import { NOTIFICATION_LEVELS, type NotificationLevel } from './options.js';
import { runOutcome, type ContainerOutcome, type OutcomeEntry, type RunOutcome } from './outcome.js';
import type { NotificationMessage, NotificationSender } from './service.js';

/** NOTIFICATION_LEVELS lists the log levels most severe first. */
const severity = (level: NotificationLevel): number => NOTIFICATION_LEVELS.indexOf(level);
const NEWS: ReadonlySet<ContainerOutcome['state']> = new Set(['Updated', 'Failed', 'Restarted']);

/** What one message is made of: the containers and entries it reports. */
export interface MessageParts {
  readonly outcome: RunOutcome;
  readonly containers: readonly ContainerOutcome[];
  readonly entries: readonly OutcomeEntry[];
}

export interface NotifierSettings {
  readonly senders: readonly NotificationSender[];
  readonly level: NotificationLevel;
  readonly splitByContainer: boolean;
  readonly delayMs: number;
  readonly announced: AnnouncedUpdates;
  /** Renders one message; '' (or only white space) means nothing to send. */
  readonly render: (parts: MessageParts) => NotificationMessage;
  readonly logger: Logger;
  readonly report: (service: string, result: 'sent' | 'failed') => void;
  readonly policy?: DeliveryPolicy;
}

export class Notifier {
  readonly #settings: NotifierSettings;
  readonly #closing = new AbortController();
  #queue: Promise<void> = Promise.resolve();

  constructor(settings: NotifierSettings) {
    this.#settings = settings;
  }

  /** A rendered message to send as it is (a pending approval's announcement, docs/notifications.md#approvals). */
  send(message: NotificationMessage): void {
    if (message.body.trim() !== '') this.#enqueue(message);
  }

  /** Called from the event hook: decides synchronously, delivers in the background. */
  onRunReport(event: EventPayloads['run_report']): void {
    const messages = this.messagesFor(runOutcome(event));
    for (const message of messages) this.#enqueue(message);
  }

  /** The messages a run produces (exported for tests); remembers the pending updates it announces. */
  messagesFor(outcome: RunOutcome): NotificationMessage[] {
    const { announced, level } = this.#settings;
    const repeated = new Set<string>();
    for (const container of outcome.containers) {
      const { name } = container.target;
      if (container.state === 'Stale') {
        if (announced.isNew(name, container.latestImageId)) announced.remember(name, container.latestImageId);
        else repeated.add(name);
      } else if (container.state !== 'Skipped') {
        announced.forget(name);
      }
    }
    void announced.save();

    const containers = outcome.containers.filter((c) => !(c.state === 'Stale' && repeated.has(c.target.name)));
    const updatesOnly = level === 'updates';
    if (updatesOnly && !containers.some((c) => NEWS.has(c.state))) return [];
    const news = new Set(containers.filter((c) => NEWS.has(c.state)).map((c) => c.target.name));
    const entries = outcome.entries.filter((entry) => {
      if (entry.container && repeated.has(entry.container)) return false;
      if (updatesOnly) return entry.container !== undefined && news.has(entry.container);
      return severity(entry.level) <= severity(level);
    });

    const groups: MessageParts[] = this.#settings.splitByContainer
      ? containers
          .filter((c) => NEWS.has(c.state))
          .map((c) => ({ outcome, containers: [c], entries: entries.filter((e) => e.container === c.target.name) }))
      : [{ outcome, containers, entries }];
    const messages: NotificationMessage[] = [];
    for (const parts of groups) {
      try {
        const message = this.#settings.render(parts);
        if (message.body.trim() !== '') messages.push(message);
      } catch (err) {
        // A template that fails on this run's data (a missing key, say) costs this message, not the run.
        this.#settings.logger.error({ err: errorMessage(err) }, 'notification template failed; nothing sent');
      }
    }
    return messages;
  }

  #enqueue(message: NotificationMessage): void {
    const { senders, delayMs, logger, report, policy } = this.#settings;
    const signal = this.#closing.signal;
    this.#queue = this.#queue.then(async () => {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
      const ctx = { logger, signal, report, ...(policy ? { policy } : {}) };
      await Promise.all(senders.map((sender) => deliver(sender, message, ctx)));
    });
  }

  /** Waits for the queue, at most `graceMs`; then abandons what is left (retries stop). */
  async close(graceMs = 10_000): Promise<void> {
    const timer = setTimeout(() => this.#closing.abort(new Error('Tidewatch is stopping')), graceMs);
    timer.unref();
    try {
      await this.#queue;
      // What was announced must be on disk before the process exits (run-once, a stop).
      await this.#settings.announced.save();
    } finally {
      clearTimeout(timer);
    }
  }
}
