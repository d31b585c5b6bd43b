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

const inFlight = new WeakMap<AbortSignal, Set<RequestCut>>();

/** Cuts `cut` when `signal` aborts (at once if it has); the returned function stops following it. */
export function cutOnAbort(signal: AbortSignal, cut: RequestCut): () => void {
  if (signal.aborted) {
    cut.cut('cancelled');
    return () => undefined;
  }
  let cuts = inFlight.get(signal);
  if (!cuts) {
    const following = new Set<RequestCut>();
    inFlight.set(signal, following);
    signal.addEventListener(
      'abort',
      () => {
        for (const each of following) each.cut('cancelled');
        following.clear();
      },
      { once: true },
    );
    cuts = following;
  }
  const set = cuts;
  set.add(cut);
  return () => set.delete(cut);
}
