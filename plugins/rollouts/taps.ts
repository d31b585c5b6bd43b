// The rollouts plugin's taps (docs/rollouts.md), made in apply over the runtime (start.ts), which they load at the
// first review or gate call when nothing needs it at start (index.ts, docs/plugins.md#loading-code-at-first-use).
import { STAGES, type RunContext, type Skip, type Staleness, type Target, type TidewatchCore, type UpdateReport } from '../../core/index.js';
import type { RolloutLedger } from './ledger.js';
import type { Rollout } from './machine.js';
import type { RolloutOptions } from './options.js';

export const PLUGIN_NAME = 'rollouts';

/** The rollouts' runtime: what the taps call, the release a route asks for, and the soak timers. */
export interface Rollouts {
  readonly ledger: RolloutLedger;
  /** The review tap: learns what each run finds due. */
  note(target: Target, staleness: Staleness, ctx: RunContext): void;
  /** The gate: a candidate goes stage by stage. */
  skip(target: Target, staleness: Staleness, ctx: RunContext): Promise<Skip | undefined>;
  /** After an update run: its replacements recorded, halts announced, next stages scheduled. */
  recordReport(report: UpdateReport): void;
  release(id: string, by: string): Rollout | string | undefined;
  /** Every soak still running gets its timer back (a restart keeps the wait). */
  resume(): void;
  close(): void;
}

/**
 * The taps over `rollouts()` (made now, or at the first call: index.ts). The review tap runs last among the
 * reviewers, the gate after the windows (STAGES.gate.schedule): a stage waits only for what may otherwise be
 * applied now. `loaded()` answers the run reports: before any review or gate call there is no rollout this
 * process could have changed (index.ts says when that holds).
 */
export function tapRollouts(core: TidewatchCore, rollouts: () => Promise<Rollouts>, loaded: () => Rollouts | undefined): void {
  core.hooks.review.tapPromise({ name: PLUGIN_NAME, stage: STAGES.review.explain + 10 }, async (staleness, target, ctx) => {
    (await rollouts()).note(target, staleness, ctx);
    return staleness;
  });
  core.hooks.gate.tapPromise({ name: PLUGIN_NAME, stage: STAGES.gate.schedule + 5 }, async (target, staleness, ctx) => (await rollouts()).skip(target, staleness, ctx));
  core.hooks.event.tap(PLUGIN_NAME, (event) => {
    if (event.type !== 'run_report' || event.data.kind !== 'update') return;
    loaded()?.recordReport(event.data.report);
  });
}

/** The start's line when --rollout-soak is set. */
export function announce(core: TidewatchCore, options: RolloutOptions, goingOn: number): void {
  if (options.rolloutSoak > 0) core.logger.child({ plugin: PLUGIN_NAME }).info({ rollout_soak_ms: options.rolloutSoak, going_on: goingOn }, 'staged rollouts');
}
