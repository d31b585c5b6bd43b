// Builds the RunContext every tap of one run shares.
import { setMaxListeners } from 'node:events';
import { isTargeted, splitFilterValues } from './request-filter.js';
import type { Actor, ContextKind, Logger, RunContext, RunFilters, RunRequest, Target } from './types.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

type AnnounceSink = (targets: readonly Target[]) => void;
const sinks = new WeakMap<RunContext, AnnounceSink>();

/** Where `ctx.announce` delivers during this run (the check pipeline); without one it does nothing. */
export function onAnnounce(ctx: RunContext, sink: AnnounceSink | undefined): void {
  if (sink) sinks.set(ctx, sink);
  else sinks.delete(ctx);
}

export function normaliseFilters(filters: Partial<RunFilters> | undefined): RunFilters {
  return {
    images: splitFilterValues(filters?.images),
    containers: splitFilterValues(filters?.containers),
    hosts: splitFilterValues(filters?.hosts),
  };
}

/** The actor a trigger implies when the caller named none: the schedule, start-up, Home Assistant, a webhook. */
export function actorOfTrigger(trigger: string): Actor | undefined {
  if (trigger === 'schedule' || trigger === 'startup' || trigger === 'mqtt') return { kind: trigger, name: trigger };
  if (trigger.startsWith('webhook:')) return { kind: 'webhook', name: trigger.slice('webhook:'.length) };
  return undefined;
}

export function createRunContext(
  kind: ContextKind,
  request: RunRequest,
  logger: Logger,
  stopping: AbortSignal = new AbortController().signal,
  preview = false,
): RunContext {
  const runId = request.runId ?? nodeCrypto().randomUUID();
  const filters = normaliseFilters(request.filters);
  const memo = new Map<string, Promise<unknown>>();
  const signal = request.signal ?? new AbortController().signal;
  // Every concurrent check and request of the run listens on this one signal: dozens of listeners are
  // the design, not a leak.
  setMaxListeners(0, signal);
  const trigger = request.trigger ?? 'embed';
  const actor = request.actor ?? actorOfTrigger(trigger);
  const ctx: RunContext = {
    runId,
    kind,
    ...(preview ? { preview: true } : {}),
    targeted: isTargeted(filters),
    trigger,
    ...(actor ? { actor } : {}),
    filters,
    signal,
    stopping,
    logger: logger.child({ run_id: runId, kind }),
    startedAt: new Date(),
    memo<T>(key: string, compute: () => Promise<T>): Promise<T> {
      let pending = memo.get(key) as Promise<T> | undefined;
      if (!pending) {
        pending = compute();
        memo.set(key, pending);
      }
      return pending;
    },
    announce(targets: readonly Target[]): void {
      sinks.get(ctx)?.(targets);
    },
  };
  return ctx;
}
