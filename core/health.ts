// Readiness checks plugins register (the Docker runtime registers an engine ping), and the startup
// state the health probes report (docs/interface.md §4).
import { TidewatchError } from './errors.js';

/** What the shared timeout resolves with: never a check's own answer. */
const TIMED_OUT = Symbol('timed out');

export type ReadinessCheck = (signal: AbortSignal) => Promise<void>;

export class Health {
  readonly #checks = new Map<string, ReadinessCheck>();
  #started = false;

  addReadinessCheck(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check);
  }

  /** Plugins are loaded and the first discovery succeeded. */
  markStarted(): void {
    this.#started = true;
  }

  get started(): boolean {
    return this.#started;
  }

  /**
   * Runs every readiness check within `timeoutMs`; resolves, or rejects naming every failing check (one
   * engine of several down is named alone: docs/hosts.md).
   */
  async ready(timeoutMs = 5000): Promise<void> {
    const signal = AbortSignal.timeout(timeoutMs);
    // One listener for every check: a hundred engines' checks on one signal made each addEventListener scan
    // the others (docs/performance.md#start-up).
    const timedOut = new Promise<typeof TIMED_OUT>((resolve) => signal.addEventListener('abort', () => resolve(TIMED_OUT), { once: true }));
    const results = await Promise.allSettled(
      [...this.#checks].map(async ([name, check]) => {
        try {
          if ((await Promise.race([check(signal), timedOut])) === TIMED_OUT) throw new Error(`${name}: no answer within ${timeoutMs} ms`);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          throw new Error(message.startsWith(`${name}:`) ? message : `${name}: ${message}`);
        }
      }),
    );
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as Error).message] : []));
    if (failures.length > 0) throw new TidewatchError('TW_ERR_NOT_READY', failures.join('; '), 503);
  }
}
