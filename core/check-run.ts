// Discovery, selection and staleness: the part a check run and an update run share. They form a
// pipeline, not three phases: targets a runtime announces while it is still discovering are selected and
// their checks start at once (docs/performance.md#the-check-pipeline).
import { errorMessage } from './errors.js';
import type { Hooks } from './hooks.js';
import { applyRequestFilters } from './request-filter.js';
import { onAnnounce } from './run-context.js';
import type { CheckResult, RunContext, Staleness, Target } from './types.js';
import type { WatchSplit } from './watch-split.js';

function select(hooks: Hooks, targets: Target[], ctx: RunContext): Target[] {
  // Request filters come last, after every plugin's own selection, for targets of any runtime.
  return applyRequestFilters(hooks.select.call(targets, ctx), ctx.filters);
}

export async function discoverAndSelect(hooks: Hooks, ctx: RunContext): Promise<Target[]> {
  return select(hooks, await hooks.discover.promise([], ctx), ctx);
}

/**
 * Never throws: a source that fails, or a target whose watch path no loaded source serves, becomes a
 * per-target error on that path (docs/plugins.md#the-watch-split).
 */
export async function checkTarget(hooks: Hooks, split: WatchSplit, target: Target, ctx: RunContext): Promise<Staleness> {
  const path = split.pathOf(target);
  try {
    const staleness = await hooks.checkStaleness.promise(target, ctx);
    if (!staleness) return { source: path, stale: false, error: `no staleness source for ${path}-watched containers is loaded` };
    // Reviewers add to a stale answer (the signature verdict, docs/signatures.md; the Docker runtime's Compose
    // note, docs/compose.md#tag-updates-and-compose); an error stays as the source gave it.
    return staleness.stale && !staleness.error && hooks.review.isUsed() ? await review(hooks, staleness, target, ctx) : staleness;
  } catch (err) {
    ctx.logger.warn({ container: target.name, err: errorMessage(err) }, 'staleness check failed');
    return { source: path, stale: false, error: errorMessage(err) };
  }
}

/** The `review` taps on a stale answer; one that throws leaves the answer as the source gave it. */
export async function review(hooks: Hooks, staleness: Staleness, target: Target, ctx: RunContext): Promise<Staleness> {
  try {
    return await hooks.review.promise(staleness, target, ctx);
  } catch (err) {
    ctx.logger.warn({ container: target.name, err: errorMessage(err) }, 'reviewing the staleness failed');
    return staleness;
  }
}

/** At most `limit` tasks running; the rest wait in arrival order. */
class Slots {
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  constructor(readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    this.#running++;
    try {
      return await task();
    } finally {
      this.#running--;
      this.#waiting.shift()?.();
    }
  }
}

/**
 * A map keyed by two strings, without a joined key per lookup: a string built per call is hashed anew
 * each time, and a run looks up every target several times (docs/performance.md).
 */
class PairMap<V> {
  readonly #outer = new Map<string, Map<string, V>>();

  get(first: string, second: string): V | undefined {
    return this.#outer.get(first)?.get(second);
  }

  set(first: string, second: string, value: V): void {
    let inner = this.#outer.get(first);
    if (!inner) {
      inner = new Map();
      this.#outer.set(first, inner);
    }
    inner.set(second, value);
  }
}

/**
 * Checks every target with at most `concurrency` checks in flight; stops starting new ones on abort.
 * Returns the selected targets and their results, both in the order discovery returned them.
 */
export async function discoverAndCheck(
  hooks: Hooks,
  split: WatchSplit,
  ctx: RunContext,
  concurrency: number,
): Promise<{ targets: Target[]; results: CheckResult[] }> {
  const slots = new Slots(Math.max(1, concurrency));
  // By runtime and id: the final selection may hand back other objects for the targets announced.
  const started = new PairMap<Promise<CheckResult>>();
  // Sources spend one request per distinct image and watch path (ctx.memo): a target whose image is
  // already being checked queues for a slot only once that check is done, then runs on the memoised
  // answer, so duplicates never hold slots that distinct images could use while they wait.
  const firstOfImage = new PairMap<Promise<unknown>>();
  const start = (target: Target): Promise<CheckResult> => {
    let pending = started.get(target.runtime, target.id);
    if (!pending) {
      const check = async () => {
        ctx.signal.throwIfAborted();
        const staleness = await checkTarget(hooks, split, target, ctx);
        return { target, staleness, checkedAt: new Date() };
      };
      const path = split.pathOf(target);
      const first = firstOfImage.get(path, target.image);
      if (first) {
        const queue = () => slots.run(check);
        pending = first.then(queue, queue);
      } else {
        pending = slots.run(check);
        firstOfImage.set(path, target.image, pending);
      }
      // A check started early whose target the final selection drops is never awaited.
      pending.catch(() => undefined);
      started.set(target.runtime, target.id, pending);
    }
    return pending;
  };
  onAnnounce(ctx, (announced) => {
    if (ctx.signal.aborted || announced.length === 0) return;
    for (const target of select(hooks, [...announced], ctx)) void start(target);
  });
  let targets: Target[];
  try {
    targets = await discoverAndSelect(hooks, ctx);
  } finally {
    onAnnounce(ctx, undefined);
  }
  // The full selection decides: what it keeps is reported (checked now if nobody announced it), the rest
  // of what was announced is dropped.
  const results = await Promise.all(
    targets.map(async (target) => {
      const result = await start(target);
      return result.target === target ? result : { ...result, target };
    }),
  );
  return { targets, results };
}
