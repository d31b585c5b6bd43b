// Who started a run, as windows see it (docs/policies.md#update-windows): runs that apply on their own (a
// schedule, the start-up run, a webhook, an untargeted POST /v1/update) wait for a window; a person's targeted
// action (POST /v1/update?container=…, the dashboard's Update, Home Assistant's Install, an approval given with
// now=true) applies at once.
import type { RunContext } from '../../core/index.js';

// `rollout`: the run a staged rollout starts for its next stage (docs/rollouts.md), automatic like a schedule's.
const AUTOMATIC_TRIGGERS: ReadonlySet<string> = new Set(['schedule', 'startup', 'rollout']);

/** The trigger of an approval's run that honours the window (approve without now=true, docs/policies.md). */
export const APPROVAL_TRIGGER = 'approval';

export function isAutomaticRun(ctx: Pick<RunContext, 'targeted' | 'trigger'>): boolean {
  if (!ctx.targeted) return true;
  return AUTOMATIC_TRIGGERS.has(ctx.trigger) || ctx.trigger.startsWith('webhook:') || ctx.trigger === APPROVAL_TRIGGER;
}
