// The frozen hook bag, declared the way webpack's Compiler declares its hooks: one object, every
// entry typed with its argument tuple. Every tap is wrapped so that an error thrown inside it names
// the plugin that threw; the run then fails that one target, never the whole process.
import { createRequire } from 'node:module';
import type {
  AsyncSeriesBailHook,
  AsyncSeriesHook,
  AsyncSeriesWaterfallHook,
  SyncHook,
  SyncWaterfallHook,
} from 'tapable';
import { errorMessage, errors, isTidewatchError } from './errors.js';
import type { TidewatchEvent } from './events.js';
import type {
  ApplyResult,
  Logger,
  RunContext,
  Skip,
  Staleness,
  Target,
  UpdatePlan,
} from './types.js';

export interface Hooks {
  /** Runtime plugins add the targets they find. */
  readonly discover: AsyncSeriesWaterfallHook<[Target[], RunContext]>;
  /** Filters (scope, enable label, names, request filters) narrow the list. */
  readonly select: SyncWaterfallHook<[Target[], RunContext]>;
  /** Staleness sources; the first that answers wins (the watch split). */
  readonly checkStaleness: AsyncSeriesBailHook<[Target, RunContext], Staleness | undefined>;
  /**
   * After a staleness source answered a target stale (checks and updates alike): plugins add what they know
   * to the answer (the signature verdict on its latestDigest, docs/signatures.md; the Docker runtime's Compose
   * note), returning it or an amended copy; never change what the source decided. Not called for an answer
   * with an error.
   */
  readonly review: AsyncSeriesWaterfallHook<[Staleness, Target, RunContext]>;
  /** Anything that may defer an update (cooldown, monitor-only). */
  readonly gate: AsyncSeriesBailHook<[Target, Staleness, RunContext], Skip | undefined>;
  /** The runtime plugin that owns the target replaces it. */
  readonly apply: AsyncSeriesBailHook<[UpdatePlan, RunContext], ApplyResult | undefined>;
  /**
   * After every apply of a run (image cleanup). A runtime may turn an entry of the results into `failed`
   * (a container its invariant check found down): the summary is counted after this hook.
   */
  readonly cleanup: AsyncSeriesHook<[ApplyResult[], RunContext]>;
  /** Every event of the bus: SSE, metrics, logging, notifications. */
  readonly event: SyncHook<[TidewatchEvent]>;
}

type TapFn = (...args: unknown[]) => unknown;
interface InterceptedTap {
  type: 'sync' | 'async' | 'promise';
  name: string;
  fn: TapFn;
}

function annotate(err: unknown, plugin: string, hook: string): Error {
  if (isTidewatchError(err, errors.pluginFailed)) return err;
  const wrapped = errors.pluginFailed(plugin, hook, errorMessage(err));
  wrapped.cause = err;
  return wrapped;
}

/** Wraps a tap so that whatever it throws or rejects with names the plugin and the hook. */
function wrapTap(tap: InterceptedTap, hook: string): InterceptedTap {
  const original = tap.fn;
  const name = tap.name;
  switch (tap.type) {
    case 'sync':
      tap.fn = (...args) => {
        try {
          return original(...args);
        } catch (err) {
          throw annotate(err, name, hook);
        }
      };
      break;
    case 'promise':
      tap.fn = (...args) => {
        try {
          return Promise.resolve(original(...args)).catch((err: unknown) => {
            throw annotate(err, name, hook);
          });
        } catch (err) {
          return Promise.reject(annotate(err, name, hook));
        }
      };
      break;
    case 'async':
      tap.fn = (...args) => {
        const callback = args.pop() as (err?: unknown, result?: unknown) => void;
        try {
          return original(...args, (err?: unknown, result?: unknown) =>
            callback(err ? annotate(err, name, hook) : err, result),
          );
        } catch (err) {
          return callback(annotate(err, name, hook));
        }
      };
      break;
  }
  return tap;
}

/** An event subscriber must never break a run or starve the subscribers after it. */
function isolateEventTap(tap: InterceptedTap, logger: Logger): InterceptedTap {
  const original = tap.fn;
  tap.fn = (...args) => {
    try {
      return original(...args);
    } catch (err) {
      logger.error({ plugin: tap.name, err: errorMessage(err) }, 'event subscriber failed');
      return undefined;
    }
  };
  return tap;
}

export function createHooks(logger: Logger): Hooks {
  // Loaded when an engine is made, not when the core's surface is imported (--help reads declarations only).
  const { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } = createRequire(
    import.meta.url,
  )('tapable') as typeof import('tapable');
  const hooks: Hooks = {
    discover: new AsyncSeriesWaterfallHook(['targets', 'context']),
    select: new SyncWaterfallHook(['targets', 'context']),
    checkStaleness: new AsyncSeriesBailHook(['target', 'context']),
    review: new AsyncSeriesWaterfallHook(['staleness', 'target', 'context']),
    gate: new AsyncSeriesBailHook(['target', 'staleness', 'context']),
    apply: new AsyncSeriesBailHook(['plan', 'context']),
    cleanup: new AsyncSeriesHook(['results', 'context']),
    event: new SyncHook(['event']),
  };
  for (const [name, hook] of Object.entries(hooks) as [keyof Hooks, Hooks[keyof Hooks]][]) {
    // tapable's interceptor typings describe the tap loosely; our wrapper keeps type, name and fn.
    const register =
      name === 'event'
        ? (tap: InterceptedTap) => isolateEventTap(tap, logger)
        : (tap: InterceptedTap) => wrapTap(tap, name);
    (hook as unknown as { intercept(i: { register: (tap: InterceptedTap) => InterceptedTap }): void }).intercept({
      register,
    });
  }
  return Object.freeze(hooks);
}
