// Cutting a registry request short, for its timeout or because its caller gave up, without an abort
// listener per request: a check of 1000 containers makes 250 requests on one run's signal, and an
// AbortController per request plus the listeners Node's http adds for a `signal` option cost about 15 ms
// of CPU per check (docs/performance.md). One listener per caller signal cuts every request in flight on it.
import type http from 'node:http';

export type CutReason = 'timeout' | 'cancelled';

/** One request's guard: cut before the request exists, it is destroyed as soon as it does. */
export class RequestCut {
  #why: CutReason | undefined;
  #request: http.ClientRequest | undefined;

  get why(): CutReason | undefined {
    return this.#why;
  }

  attach(request: http.ClientRequest): void {
    this.#request = request;
    if (this.#why) request.destroy(new Error(this.#why));
  }

  cut(why: CutReason): void {
    if (this.#why) return;
    this.#why = why;
    this.#request?.destroy(new Error(why));
  }
}

interface Following {
  readonly cuts: Set<RequestCut>;
  readonly onAbort: () => void;
}

const inFlight = new WeakMap<AbortSignal, Following>();

/**
 * The one listener on `signal` while requests on it are in flight. Made here, apart from `cutOnAbort`, so
 * that its closure reaches the set only, never the request that happened to come first: a listener left on
 * a long-lived signal kept that request, its answer and its buffers alive (docs/performance.md#memory).
 */
function follow(signal: AbortSignal): Following {
  const cuts = new Set<RequestCut>();
  const onAbort = () => {
    inFlight.delete(signal);
    for (const each of cuts) each.cut('cancelled');
    cuts.clear();
  };
  signal.addEventListener('abort', onAbort, { once: true });
  return { cuts, onAbort };
}

/**
 * Cuts `cut` when `signal` aborts (at once if it has); the returned function stops following it. The
 * listener goes when the last request on the signal ends, so nothing stays behind on a signal that
 * outlives its requests (the engine's stop).
 */
export function cutOnAbort(signal: AbortSignal, cut: RequestCut): () => void {
  if (signal.aborted) {
    cut.cut('cancelled');
    return () => undefined;
  }
  let following = inFlight.get(signal);
  if (!following) {
    following = follow(signal);
    inFlight.set(signal, following);
  }
  const { cuts, onAbort } = following;
  cuts.add(cut);
  return () => {
    if (!cuts.delete(cut) || cuts.size > 0) return;
    signal.removeEventListener('abort', onAbort);
    if (inFlight.get(signal)?.cuts === cuts) inFlight.delete(signal);
  };
}
