// The single update lock (docs/http-api-contract.md §8.3): one update run at a time. A full run try-locks and is refused
// when busy; a targeted run queues and may be aborted while it waits. Waiters are served in order.
import { errors } from './errors.js';

export type Release = () => void;

export class UpdateLock {
  #held = false;
  readonly #waiters: { grant: (release: Release) => void }[] = [];

  get busy(): boolean {
    return this.#held;
  }

  /** The lock's release function, or undefined when another run holds it. */
  tryAcquire(): Release | undefined {
    if (this.#held) return undefined;
    this.#held = true;
    return this.#releaser();
  }

  /** Waits for the lock; rejects with TW_ERR_ABORTED when `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<Release> {
    const immediate = this.tryAcquire();
    if (immediate) return Promise.resolve(immediate);
    return new Promise<Release>((resolve, reject) => {
      const waiter = {
        grant: (release: Release) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index !== -1) this.#waiters.splice(index, 1);
        reject(errors.aborted('cancelled while waiting for the update lock'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  #releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiters.shift();
      if (next) next.grant(this.#releaser());
      else this.#held = false;
    };
  }
}
