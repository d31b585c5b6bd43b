// Delivering one message through one sender: retried with exponential backoff, never thrown, logged
// without credentials (the sender's redacted URL), and counted (`notification` events feed
// tidewatch_notifications_total). A notification that fails never blocks or fails a run: the notifier
// calls this off the run's path (docs/notifications.md#delivery).
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage, type Logger } from '../../core/index.js';
import type { NotificationMessage, NotificationSender } from './service.js';

export interface DeliveryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** Wait before the second attempt; doubled for each further one. */
  readonly backoffMs: number;
}

export const DEFAULT_DELIVERY: DeliveryPolicy = { attempts: 4, backoffMs: 2_000 };

export interface DeliveryContext {
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly report: (service: string, result: 'sent' | 'failed') => void;
  readonly policy?: DeliveryPolicy;
}

export async function deliver(sender: NotificationSender, message: NotificationMessage, ctx: DeliveryContext): Promise<boolean> {
  const { attempts, backoffMs } = ctx.policy ?? DEFAULT_DELIVERY;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      await sender.send(message, ctx.signal);
      ctx.report(sender.service, 'sent');
      if (attempt > 1) ctx.logger.info({ url: sender.redacted, attempt }, 'notification sent after a retry');
      return true;
    } catch (err) {
      const last = attempt === attempts || ctx.signal.aborted;
      ctx.logger.warn(
        { url: sender.redacted, attempt, attempts, err: errorMessage(err) },
        last ? 'notification failed; giving up' : 'notification failed; retrying',
      );
      if (last) break;
      await sleep(backoffMs * 2 ** (attempt - 1), undefined, { signal: ctx.signal }).catch(() => undefined);
    }
  }
  ctx.report(sender.service, 'failed');
  return false;
}
