// Readiness checks plugins register (the Docker runtime registers an engine ping), and the startup
// state the health probes report (docs/interface.md §4).
import { TidewatchError } from './errors.js';

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
    const results = await Promise.allSettled(
      [...this.#checks].map(async ([name, check]) => {
        const timedOut = new Promise<never>((_, reject) =>
          signal.addEventListener('abort', () => reject(new Error(`${name}: no answer within ${timeoutMs} ms`)), { once: true }),
        );
        try {
          await Promise.race([check(signal), timedOut]);
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
