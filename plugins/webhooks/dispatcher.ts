// From hints to runs (docs/webhooks.md#handling): hints are collected per receiver and repository and
// handed on once the repository has been quiet for the debounce (a multi-platform push, its platform
// manifests and its signature arrive as one burst: one run), or once the burst has lasted `maxWaitMs`.
// Batches run one at a time. The backlog (batches waiting or queued) is bounded: beyond it the sender is
// told 429 and retries later, so a flood of pushes can neither grow memory nor queue runs without end.
import type { Logger } from '../../core/index.js';
import type { Hint } from './hints.js';
import type { WebhookReceiver } from './receivers.js';
import { addHint, batchKey, newBatch, type Batch } from './selection.js';

export interface Job {
  readonly receiver: WebhookReceiver;
  readonly batch: Batch;
  /** When the first hint of the burst arrived (the debounce a run includes starts here). */
  readonly firstAt: number;
}

export interface DispatcherOptions {
  readonly debounceMs: number;
  readonly maxWaitMs: number;
  readonly backlog: number;
  readonly run: (job: Job) => Promise<void>;
  readonly logger: Logger;
}

interface Pending {
  readonly job: Job;
  timer: NodeJS.Timeout;
}

export class Dispatcher {
  readonly #options: DispatcherOptions;
  readonly #pending = new Map<string, Pending>();
  readonly #queue: Job[] = [];
  #running = false;
  #closed = false;

  constructor(options: DispatcherOptions) {
    this.#options = options;
  }

  /** Batches waiting for their burst to end or for their turn. */
  get backlog(): number {
    return this.#pending.size + this.#queue.length;
  }

  /** Adds the hints to their repositories' bursts; false (nothing added) when the backlog has no room for them. */
  offer(receiver: WebhookReceiver, hints: readonly Hint[]): boolean {
    if (this.#closed) return false;
    const keys = new Set(hints.map((h) => `${receiver.name}\0${batchKey(h)}`));
    const fresh = [...keys].filter((k) => !this.#pending.has(k)).length;
    if (this.backlog + fresh > this.#options.backlog) return false;
    const now = Date.now();
    for (const hint of hints) {
      const key = `${receiver.name}\0${batchKey(hint)}`;
      let pending = this.#pending.get(key);
      if (!pending) {
        const job: Job = { receiver, batch: newBatch(hint), firstAt: now };
        pending = { job, timer: this.#schedule(key, this.#options.debounceMs) };
        this.#pending.set(key, pending);
      } else {
        // Quiet period restarts with every hint of the burst, within the burst's longest wait.
        clearTimeout(pending.timer);
        const left = pending.job.firstAt + this.#options.maxWaitMs - now;
        pending.timer = this.#schedule(key, Math.max(0, Math.min(this.#options.debounceMs, left)));
      }
      addHint(pending.job.batch, hint);
    }
    return true;
  }

  close(): void {
    this.#closed = true;
    for (const pending of this.#pending.values()) clearTimeout(pending.timer);
    this.#pending.clear();
    this.#queue.length = 0;
  }

  #schedule(key: string, delayMs: number): NodeJS.Timeout {
    const timer = setTimeout(() => this.#fire(key), delayMs);
    timer.unref();
    return timer;
  }

  #fire(key: string): void {
    const pending = this.#pending.get(key);
    if (!pending) return;
    this.#pending.delete(key);
    this.#queue.push(pending.job);
    void this.#drain();
  }

  async #drain(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      for (let job = this.#queue.shift(); job && !this.#closed; job = this.#queue.shift()) {
        try {
          await this.#options.run(job);
        } catch (err) {
          this.#options.logger.error({ receiver: job.receiver.name, repository: job.batch.repository, err: (err as Error).message }, 'webhook run failed');
        }
      }
    } finally {
      this.#running = false;
    }
  }
}
