// Discovery, selection and staleness: the part a check run and an update run share.
import { mapBounded } from './bounded.js';
import { errorMessage } from './errors.js';
import type { Hooks } from './hooks.js';
import { applyRequestFilters } from './request-filter.js';
import type { CheckResult, RunContext, Staleness, Target } from './types.js';
import type { WatchSplit } from './watch-split.js';

export async function discoverAndSelect(hooks: Hooks, ctx: RunContext): Promise<Target[]> {
  const discovered = await hooks.discover.promise([], ctx);
  const selected = hooks.select.call(discovered, ctx);
  // Request filters come last, after every plugin's own selection, for targets of any runtime.
  return applyRequestFilters(selected, ctx.filters);
}

/**
 * Never throws: a source that fails, or a target whose watch path no loaded source serves, becomes a
 * per-target error on that path (docs/plugins.md#the-watch-split).
 */
export async function checkTarget(hooks: Hooks, split: WatchSplit, target: Target, ctx: RunContext): Promise<Staleness> {
  const path = split.pathOf(target);
  try {
    const staleness = await hooks.checkStaleness.promise(target, ctx);
    return staleness ?? { source: path, stale: false, error: `no staleness source for ${path}-watched containers is loaded` };
  } catch (err) {
    ctx.logger.warn({ container: target.name, err: errorMessage(err) }, 'staleness check failed');
    return { source: path, stale: false, error: errorMessage(err) };
  }
}

/** Checks every target with at most `concurrency` checks in flight; stops starting new ones on abort. */
export function checkTargets(
  hooks: Hooks,
  split: WatchSplit,
  targets: readonly Target[],
  ctx: RunContext,
  concurrency: number,
): Promise<CheckResult[]> {
  return mapBounded(targets, concurrency, async (target) => {
    ctx.signal.throwIfAborted();
    const staleness = await checkTarget(hooks, split, target, ctx);
    return { target, staleness, checkedAt: new Date() };
  });
}
