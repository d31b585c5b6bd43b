// A rollout's next stage starts on its own (docs/rollouts.md#when-the-next-stage-runs): when a stage's soak
// ends, the plugin decides a plan for the next stage's containers and applies it — the one exact path every
// decided update takes (docs/plans.md#from-a-plugin). The plan's gates judge as in any automatic run (windows,
// approvals, holds), so the rollout gate verifies the soaked stage before the next one goes. The timers are
// set again at start from the kept rollouts: a restart keeps the wait.
import { errorMessage, exactNamePattern, type Logger, type TidewatchCore } from '../../core/index.js';
import { ROLLOUT_TRIGGER } from './gate.js';
import type { RolloutLedger } from './ledger.js';
import { nextStage, soakingUntil, type Rollout } from './machine.js';

/** setTimeout's longest delay; a longer soak is waited out in steps. */
const MAX_DELAY_MS = 2_147_000_000;

export interface NextStageDeps {
  readonly core: TidewatchCore;
  readonly ledger: RolloutLedger;
  readonly logger: Logger;
  readonly now?: () => Date;
}

export class NextStages {
  readonly #deps: NextStageDeps;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  #closed = false;

  constructor(deps: NextStageDeps) {
    this.#deps = deps;
  }

  /** Sets (or moves) the rollout's timer to its soak's end (at once when that is past). */
  schedule(rollout: Rollout): void {
    const timer = this.#timers.get(rollout.id);
    if (timer) clearTimeout(timer);
    this.#timers.delete(rollout.id);
    if (this.#closed || !nextStage(rollout)) return;
    // Only a soak's end starts a stage: a stage admitted during a run is applied by that run.
    const until = soakingUntil(rollout);
    if (!until) return;
    const now = (this.#deps.now?.() ?? new Date()).getTime();
    const delay = Math.min(MAX_DELAY_MS, Math.max(0, until.getTime() - now));
    const handle = setTimeout(() => {
      this.#timers.delete(rollout.id);
      void this.#run(rollout.id);
    }, delay);
    handle.unref();
    this.#timers.set(rollout.id, handle);
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }

  async #run(id: string): Promise<void> {
    const { core, ledger, logger } = this.#deps;
    const rollout = ledger.get(id);
    if (!rollout || this.#closed) return;
    const until = soakingUntil(rollout);
    if (until && until.getTime() > (this.#deps.now?.() ?? new Date()).getTime()) return this.schedule(rollout);
    // The stage after the one soaking (or the one running) with containers still to replace.
    const stage = rollout.stages.find((s) => (s.state === 'waiting' || s.state === 'running') && s.members.some((m) => m.state === 'pending'));
    if (!stage) return;
    const pending = stage.members.filter((m) => m.state === 'pending');
    const filters = {
      containers: [...new Set(pending.map((m) => exactNamePattern(m.container)))],
      hosts: [...new Set(pending.map((m) => m.host).filter((h) => h !== ''))],
    };
    try {
      const plan = await core.plan({ filters, trigger: ROLLOUT_TRIGGER });
      logger.info({ rollout: id, stage: stage.stage, plan_id: plan.planId, steps: plan.steps.length, skipped: plan.skipped.length }, 'rollout stage planned');
      if (plan.steps.length > 0) await core.applyPlan(plan.planId, { trigger: ROLLOUT_TRIGGER });
    } catch (err) {
      if (this.#closed) return;
      logger.warn({ rollout: id, stage: stage.stage, err: errorMessage(err) }, 'the rollout\'s next stage did not run; the next automatic run applies it');
    }
  }
}
