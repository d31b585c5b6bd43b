// A counting semaphore: at most `limit` registry requests in flight for the whole plugin, however many
// targets the core checks at once. Waiters are served in arrival order and can be aborted.

interface Waiter {
  resolve: () => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export class Limiter {
  readonly #limit: number;
  #active = 0;
  readonly #waiting: Waiter[] = [];

  constructor(limit: number) {
    this.#limit = Math.max(1, Math.floor(limit));
  }

  get active(): number {
    return this.#active;
  }

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(signal);
    try {
      return await work();
    } finally {
      this.#release();
    }
  }

  #acquire(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#active < this.#limit) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { resolve, reject };
      if (signal) {
        waiter.signal = signal;
        waiter.onAbort = () => {
          const i = this.#waiting.indexOf(waiter);
          if (i !== -1) this.#waiting.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#waiting.push(waiter);
    });
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (!next) {
      this.#active--;
      return;
    }
    // The slot passes straight to the next waiter.
    if (next.signal && next.onAbort) next.signal.removeEventListener('abort', next.onAbort);
    next.resolve();
  }
}
