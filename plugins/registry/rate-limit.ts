// Politeness towards registries that rate-limit. A 429 (or a `toomanyrequests` error body) pauses
// that registry only: requests to others go on. While paused, nothing is sent to it; when the pause
// ends, one request probes and the rest wait for its answer, so a storm of 429s costs one request per
// backoff step rather than one per waiting container. Each request has a budget (default 30 s):
// a pause that would outlast it fails the request at once with a rate-limit error, which the
// staleness source reports for that container, never as "up to date".
import { TidewatchError } from '../../core/index.js';
import { header, type HeaderMap, type RegistryReply } from './transport.js';

export interface RateLimitOptions {
  /** Longest a request may wait for a registry to accept it again, ms (default 30000). */
  readonly maxWaitMs?: number;
  /** Retries of one request after a rate limit (default 4). */
  readonly maxRetries?: number;
  /** First backoff step, ms (default 100); doubles per consecutive limited probe. */
  readonly baseDelayMs?: number;
  /** Largest backoff step, ms (default 30000). */
  readonly maxDelayMs?: number;
  readonly now?: () => number;
}

export class RateLimitError extends TidewatchError {
  readonly registry: string;
  readonly until: Date | undefined;
  constructor(registry: string, until: number | undefined, detail: string) {
    const when = until !== undefined ? ` until ${new Date(until).toISOString()}` : '';
    super('TW_ERR_REGISTRY_RATE_LIMITED', `${registry} is rate limiting requests${when} (${detail})`, 429);
    this.name = 'RateLimitError';
    this.registry = registry;
    this.until = until !== undefined ? new Date(until) : undefined;
  }
}

interface RegistryState {
  pausedUntil: number;
  /** When the current pause began: answers to requests sent before it belong to the same burst. */
  pausedAt: number;
  /** Consecutive limited answers to requests sent after a pause began (the backoff exponent). */
  strikes: number;
  /** Set while recovering from a pause: the next request is a probe, the others wait for its outcome. */
  recovering: boolean;
  probe: Promise<void> | undefined;
  endProbe: (() => void) | undefined;
  lastReason: string;
}

/** A request's pass to send: `sentAt` orders it against pauses; `probe` marks the one that tests recovery. */
export interface Admission {
  readonly sentAt: number;
  readonly probe: boolean;
}

/** `Retry-After` as seconds or an HTTP date → ms from now. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * `RateLimit-Remaining: 0` with a reset time (`RateLimit-Reset`, `X-RateLimit-Reset`: seconds from now, or
 * epoch seconds when larger than a year) → ms until the quota returns. Docker Hub's `RateLimit-*` headers
 * carry only `;w=` windows about pulls, which a HEAD does not spend: without a reset nothing is paused.
 */
export function quotaExhaustedFor(headers: HeaderMap, now: number): number | undefined {
  const remaining = header(headers, 'ratelimit-remaining') ?? header(headers, 'x-ratelimit-remaining');
  if (remaining === undefined || Number.parseInt(remaining, 10) !== 0) return undefined;
  const reset = header(headers, 'ratelimit-reset') ?? header(headers, 'x-ratelimit-reset');
  if (reset === undefined) return undefined;
  const n = Number.parseFloat(reset);
  if (!Number.isFinite(n) || n < 0) return undefined;
  return n > 365 * 86_400 ? Math.max(0, n * 1000 - now) : n * 1000;
}

/** 429, or a Distribution error body with code TOOMANYREQUESTS (some registries send it with 403/503). */
export function isRateLimited(reply: RegistryReply): boolean {
  if (reply.status === 429) return true;
  if (reply.status < 400 || reply.body.length === 0) return false;
  return /toomanyrequests/i.test(reply.body.toString('utf8'));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class RateLimiter {
  readonly maxWaitMs: number;
  readonly maxRetries: number;
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  readonly #now: () => number;
  readonly #states = new Map<string, RegistryState>();

  constructor(options: RateLimitOptions = {}) {
    this.maxWaitMs = options.maxWaitMs ?? 30_000;
    this.maxRetries = options.maxRetries ?? 4;
    this.#baseDelayMs = options.baseDelayMs ?? 100;
    this.#maxDelayMs = options.maxDelayMs ?? 30_000;
    this.#now = options.now ?? Date.now;
  }

  now(): number {
    return this.#now();
  }

  #state(registry: string): RegistryState {
    let state = this.#states.get(registry);
    if (!state) {
      state = { pausedUntil: 0, pausedAt: 0, strikes: 0, recovering: false, probe: undefined, endProbe: undefined, lastReason: '' };
      this.#states.set(registry, state);
    }
    return state;
  }

  /** Waits until `registry` may be asked again; throws RateLimitError when that is after `deadline`. */
  async admit(registry: string, deadline: number, signal?: AbortSignal): Promise<Admission> {
    for (;;) {
      const state = this.#state(registry);
      const now = this.#now();
      if (now < state.pausedUntil) {
        if (state.pausedUntil > deadline) throw new RateLimitError(registry, state.pausedUntil, state.lastReason);
        await sleep(state.pausedUntil - now, signal);
        continue;
      }
      if (state.recovering) {
        if (state.probe) {
          await state.probe;
          continue;
        }
        state.probe = new Promise((resolve) => (state.endProbe = resolve));
        return { sentAt: now, probe: true };
      }
      return { sentAt: now, probe: false };
    }
  }

  /** A non-limited answer: a successful probe ends the recovery; an exhausted quota with a reset pauses. */
  accepted(registry: string, admission: Admission, headers: HeaderMap): void {
    const state = this.#state(registry);
    if (admission.probe || admission.sentAt >= state.pausedAt) {
      state.strikes = 0;
      state.recovering = false;
    }
    if (admission.probe) this.#endProbe(state);
    const resetIn = quotaExhaustedFor(headers, this.#now());
    if (resetIn !== undefined && resetIn > 0) this.#pause(state, resetIn, 'quota exhausted', false);
  }

  /**
   * A limited answer: pause the registry for `Retry-After` or the next backoff step, whichever is longer.
   * Answers to requests sent before the current pause began are the same burst and do not lengthen it.
   */
  limited(registry: string, admission: Admission, reply: RegistryReply): void {
    const state = this.#state(registry);
    const now = this.#now();
    const retryAfter = parseRetryAfter(header(reply.headers, 'retry-after'), now) ?? quotaExhaustedFor(reply.headers, now);
    const sameBurst = !admission.probe && admission.sentAt < state.pausedAt;
    if (!sameBurst) state.strikes++;
    const backoff = Math.min(this.#maxDelayMs, this.#baseDelayMs * 2 ** Math.max(0, state.strikes - 1));
    const reason = `HTTP ${reply.status}${retryAfter !== undefined ? `, Retry-After ${Math.ceil(retryAfter / 1000)}s` : ''}`;
    this.#pause(state, Math.max(retryAfter ?? 0, backoff), reason, !sameBurst);
    if (admission.probe) this.#endProbe(state);
  }

  /** A request that got no answer must not leave the others waiting for its probe forever. */
  abandoned(registry: string, admission: Admission): void {
    if (admission.probe) this.#endProbe(this.#state(registry));
  }

  #pause(state: RegistryState, ms: number, reason: string, restart: boolean): void {
    const now = this.#now();
    const until = now + ms;
    if (restart || state.pausedUntil < now) state.pausedAt = now;
    state.pausedUntil = Math.max(state.pausedUntil, until);
    state.recovering = true;
    state.lastReason = reason;
  }

  #endProbe(state: RegistryState): void {
    const end = state.endProbe;
    state.probe = undefined;
    state.endProbe = undefined;
    end?.();
  }
}
