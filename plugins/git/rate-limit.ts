// GitHub's rate limits, read from its response headers (docs.github.com, "Rate limits for the REST
// API"): `x-ratelimit-remaining` / `x-ratelimit-reset` for the primary limit, `retry-after` for the
// secondary one. Once a limit is hit, no request goes out before the server said it may: asking
// again early only prolongs a secondary-limit penalty and never succeeds for the primary one.
import { TidewatchError } from '../../core/index.js';

export type HeaderBag = Readonly<Record<string, string | number | undefined>>;

/** GitHub's advice when a secondary limit gives no `retry-after`: wait at least a minute. */
const SECONDARY_DEFAULT_MS = 60_000;

export class RateLimitedError extends TidewatchError {
  readonly until: Date;
  constructor(until: Date) {
    super('TW_ERR_GIT_RATE_LIMITED', `GitHub API rate limit exhausted; no request before ${until.toISOString()}`, 429);
    this.name = 'RateLimitedError';
    this.until = until;
  }
}

function header(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return value === undefined ? undefined : String(value);
}

function parseIntHeader(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number.parseInt(value, 10);
}

/** `retry-after` is whole seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const seconds = parseIntHeader(value);
  if (seconds !== undefined) return now + seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}

export class RateLimitGate {
  #blockedUntil = 0;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Throws RateLimitedError while a limit is in force. */
  check(): void {
    if (this.#now() < this.#blockedUntil) throw new RateLimitedError(new Date(this.#blockedUntil));
  }

  get blockedUntil(): Date | undefined {
    return this.#now() < this.#blockedUntil ? new Date(this.#blockedUntil) : undefined;
  }

  /**
   * Learns from one response. Returns true when the response was a rate-limit refusal (403 or 429
   * with the limit headers, a `retry-after`, or a message saying so); the gate is then closed.
   */
  observe(status: number, headers: HeaderBag, message = ''): boolean {
    const now = this.#now();
    const remaining = parseIntHeader(header(headers, 'x-ratelimit-remaining'));
    const reset = parseIntHeader(header(headers, 'x-ratelimit-reset'));
    const retryAt = parseRetryAfter(header(headers, 'retry-after'), now);
    const resetAt = reset === undefined ? undefined : reset * 1000;

    if (status === 403 || status === 429) {
      let until: number | undefined;
      if (retryAt !== undefined) until = retryAt;
      else if (remaining === 0) until = resetAt ?? now + SECONDARY_DEFAULT_MS;
      else if (status === 429 || /rate limit/i.test(message)) until = now + SECONDARY_DEFAULT_MS;
      if (until === undefined) return false; // a plain 403: permissions, not limits
      this.#close(until);
      return true;
    }
    // A success that spent the last request: the next one would be refused until the reset.
    if (remaining === 0 && resetAt !== undefined) this.#close(resetAt);
    return false;
  }

  #close(until: number): void {
    this.#blockedUntil = Math.max(this.#blockedUntil, until);
  }
}
