// The rollouts plugin at work (docs/rollouts.md): what the review tap learns each run finds due, the gate that lets
// a candidate through stage by stage, the run reports that record each replacement, the timers that start a stage
// once the one before has soaked, and the /v1/rollouts routes. The taps themselves are taps.ts's.
import type { TidewatchCore } from '../../core/index.js';
import { DOCKER_ENGINES, STATE_STORE } from '../../contracts/index.js';
import { DueInRuns, rolloutSkip } from './gate.js';
import { RolloutLedger } from './ledger.js';
import { haltReason, release, type Rollout } from './machine.js';
import { NextStages } from './next-stage.js';
import type { RolloutOptions } from './options.js';
import { recordRun } from './outcomes.js';
import { rolloutRoutes } from './routes.js';
import { verifyStage } from './verify.js';
import { PLUGIN_NAME, announce, tapRollouts, type Rollouts } from './taps.js';

export { PLUGIN_NAME };

export function makeRollouts(core: TidewatchCore, options: RolloutOptions, ledger = new RolloutLedger(core.services.require(STATE_STORE))): Rollouts {
  const logger = core.logger.child({ plugin: PLUGIN_NAME });
  const due = new DueInRuns();
  const next = new NextStages({ core, ledger, logger });
  const soakMs = options.rolloutSoak;

  const announceHalt = (rollout: Rollout): void => {
    const halted = rollout.halted;
    if (!halted) return;
    logger.warn({ rollout: rollout.id, image: rollout.image, host: halted.host, container: halted.container, err: halted.error }, 'rollout halted');
    core.emit('rollout_halted', {
      rollout_id: rollout.id,
      image: rollout.image,
      digest: rollout.digest,
      host: halted.host,
      container: halted.container,
      stage: halted.stage,
      error: halted.error,
      reason: haltReason(rollout),
    });
  };
  const gate = {
    ledger,
    due,
    logger,
    verify: (stage: Parameters<typeof verifyStage>[0], signal: AbortSignal) => verifyStage(stage, core.services.get(DOCKER_ENGINES), signal),
    halted: announceHalt,
    soakMs,
  };
  return {
    ledger,
    note: (target, staleness, ctx) => due.note(target, staleness, ctx),
    skip: (target, staleness, ctx) => rolloutSkip(gate, target, staleness, ctx),
    recordReport: (report) => {
      const { changed, halted } = recordRun({ ledger, soakMs }, report);
      for (const rollout of halted) announceHalt(rollout);
      for (const rollout of changed) next.schedule(rollout);
    },
    release: (id, by) => {
      const rollout = ledger.get(id);
      if (!rollout) return undefined;
      if (!release(rollout, by, soakMs, new Date())) return `rollout ${id} is ${rollout.state}, not halted`;
      ledger.save(rollout);
      logger.info({ rollout: id, by }, 'rollout released');
      next.schedule(rollout);
      return rollout;
    },
    resume: () => {
      for (const rollout of ledger.active()) next.schedule(rollout);
    },
    close: () => next.close(),
  };
}

/** Everything at start: the routes (the API serves `rollouts`) and the soaks of rollouts going on. */
export function startRollouts(core: TidewatchCore, options: RolloutOptions, ledger?: RolloutLedger): void {
  const rollouts = makeRollouts(core, options, ledger);
  tapRollouts(core, async () => rollouts, () => rollouts);
  rolloutRoutes(core, { ledger: rollouts.ledger, release: (id, by) => rollouts.release(id, by) });
  rollouts.resume();
  core.onClose(() => rollouts.close());
  announce(core, options, rollouts.ledger.active().length);
}
