// A run's signal: aborted when the caller's request signal or the engine's stop aborts. Not
// `AbortSignal.any`: Node keeps a signal made by `any` alive for as long as its sources live whenever
// something listens on it, and the engine's stop lives as long as the process, so every run that left a
// listener behind (a registry request's cut, a waiter) stayed in memory with whatever that listener
// reached (docs/performance.md#memory). This signal is a plain controller's; `unlink` removes the two
// listeners on the sources when the run ends, after which nothing long-lived reaches it.
export interface LinkedSignal {
  readonly signal: AbortSignal;
  /** Stops following the sources; the signal keeps whatever state it has. */
  unlink(): void;
}

export function linkedSignal(sources: readonly AbortSignal[]): LinkedSignal {
  const controller = new AbortController();
  const aborted = sources.find((s) => s.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, unlink: () => undefined };
  }
  const follow = (source: AbortSignal) => () => {
    if (!controller.signal.aborted) controller.abort(source.reason);
    unlink();
  };
  const listeners = sources.map((source) => [source, follow(source)] as const);
  const unlink = () => {
    for (const [source, listener] of listeners) source.removeEventListener('abort', listener);
  };
  for (const [source, listener] of listeners) source.addEventListener('abort', listener, { once: true });
  return { signal: controller.signal, unlink };
}
