// Builds the RunContext every tap of one run shares.
import { setMaxListeners } from 'node:events';
import { isTargeted, splitFilterValues } from './request-filter.js';
import type { Actor, ContextKind, Logger, RunContext, RunFilters, RunRequest, Target } from './types.js';

/**
 * A run's id: a UUID (version 4) that must be unique, not secret — every viewer of the API and the audit trail
 * sees it, and nothing is granted by knowing one. Drawn from Math.random rather than node:crypto, which the
 * start-up discovery would otherwise load into every idle service for this alone, about 2 MB of its RSS
 * (docs/performance.md#memory). 122 random bits from V8's generator, seeded afresh for every process.
 */
export function newRunId(): string {
  const hex = (bits: number) => Math.floor(Math.random() * 2 ** bits).toString(16).padStart(bits / 4, '0');
  const variant = (8 + Math.floor(Math.random() * 4)).toString(16);
  return `${hex(32)}-${hex(16)}-4${hex(12)}-${variant}${hex(12)}-${hex(24)}${hex(24)}`;
}

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
  const runId = request.runId ?? newRunId();
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
