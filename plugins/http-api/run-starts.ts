// Tells the update route when its run has really started. The core emits `scan_started` once the
// update lock is held, so "started" is the moment a targeted request stops waiting: the async 202 is
// sent then (docs/http-api-contract.md §4.1.3), and from then on a client that hangs up no longer cancels the run.
import type { TidewatchEvent } from '../../core/index.js';

export class RunStarts {
  readonly #waiting = new Map<string, (targeted: boolean) => void>();

  /** Resolves, with whether the run is targeted, when `scan_started` of `runId` is emitted; `cancel` forgets it. */
  wait(runId: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.#waiting.set(runId, resolve);
    });
  }

  cancel(runId: string): void {
    this.#waiting.delete(runId);
  }

  onEvent(event: TidewatchEvent): void {
    if (event.type !== 'scan_started') return;
    const resolve = this.#waiting.get(event.data.run_id);
    if (!resolve) return;
    this.#waiting.delete(event.data.run_id);
    resolve(event.data.targeted);
  }
}
