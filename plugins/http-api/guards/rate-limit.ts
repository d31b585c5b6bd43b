// The per-IP limiter of docs/http-api-contract.md §8.1: a true sliding window (a log of request times per client, not
// fixed buckets, so no burst of 2× the limit fits across a bucket edge), evaluated before
// authentication so that guessing tokens is throttled too. Over the limit: 429, empty body,
// `Retry-After` in whole seconds until the oldest request in the window leaves it.

const WINDOW_MS = 60_000;

interface Log {
  /** Request times, oldest first; `head` skips the expired ones without shifting the array. */
  times: number[];
  head: number;
}

export type RateDecision = { allowed: true; remaining: number } | { allowed: false; retryAfterSeconds: number };

export class SlidingWindowLimiter {
  readonly #limit: number;
  readonly #logs = new Map<string, Log>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #now: () => number;

  constructor(limitPerMinute: number, now: () => number = Date.now) {
    this.#limit = limitPerMinute;
    this.#now = now;
    // Forget idle clients so that a scan from many addresses cannot grow the map forever.
    this.#sweeper = setInterval(() => this.sweep(), WINDOW_MS);
    this.#sweeper.unref();
  }

  take(key: string): RateDecision {
    const now = this.#now();
    let log = this.#logs.get(key);
    if (!log) {
      log = { times: [], head: 0 };
      this.#logs.set(key, log);
    }
    expire(log, now);
    const inWindow = log.times.length - log.head;
    if (inWindow >= this.#limit) {
      const oldest = log.times[log.head] as number;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
    }
    log.times.push(now);
    return { allowed: true, remaining: this.#limit - inWindow - 1 };
  }

  sweep(): void {
    const now = this.#now();
    for (const [key, log] of this.#logs) {
      expire(log, now);
      if (log.times.length === log.head) this.#logs.delete(key);
    }
  }

  close(): void {
    clearInterval(this.#sweeper);
  }
}

function expire(log: Log, now: number): void {
  while (log.head < log.times.length && (log.times[log.head] as number) <= now - WINDOW_MS) log.head++;
  // Compact once the dead prefix dominates, keeping the amortised cost per request constant.
  if (log.head > 32 && log.head * 2 > log.times.length) {
    log.times = log.times.slice(log.head);
    log.head = 0;
  }
}
