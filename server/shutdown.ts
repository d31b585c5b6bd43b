// How the process is asked to stop (docs/stopping.md). The handlers are installed before any plugin is
// applied, so SIGTERM or SIGINT never kills the process in the middle of a start-up repair or a
// replacement: the first signal asks for a graceful stop (runs are cancelled between targets and an
// unproven replacement is rolled back, see Tidewatch.stop), a second one exits at once, leaving what a
// SIGKILL would leave, which the next start repairs.

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

export class Shutdown {
  /** The first signal received, once there was one. */
  signal: NodeJS.Signals | undefined;
  /** Resolves with the first signal. */
  readonly requested: Promise<NodeJS.Signals>;
  readonly #listeners: ((signal: NodeJS.Signals) => void)[] = [];
  readonly #onSignal: (signal: NodeJS.Signals) => void;
  #resolve!: (signal: NodeJS.Signals) => void;

  /** `force` runs on the second signal: by default the process exits with 130 (as a shell reports SIGINT). */
  constructor(force: (signal: NodeJS.Signals) => void = () => process.exit(130)) {
    this.requested = new Promise((resolve) => (this.#resolve = resolve));
    this.#onSignal = (signal) => {
      if (this.signal !== undefined) {
        force(signal);
        return;
      }
      this.signal = signal;
      this.#resolve(signal);
      for (const listener of this.#listeners.splice(0)) listener(signal);
    };
    for (const name of SIGNALS) process.on(name, this.#onSignal);
  }

  /** Runs `listener` on the first signal (at once when it already came). */
  onRequest(listener: (signal: NodeJS.Signals) => void): void {
    if (this.signal !== undefined) listener(this.signal);
    else this.#listeners.push(listener);
  }

  dispose(): void {
    for (const name of SIGNALS) process.off(name, this.#onSignal);
  }
}
