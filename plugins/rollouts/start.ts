// The rollouts plugin at work (docs/rollouts.md): the review tap that learns what each run finds due, the gate
// that lets a candidate through stage by stage, the run reports that record each replacement, the timers that
// start a stage once the one before has soaked, and the /v1/rollouts routes.
import { STAGES, type TidewatchCore } from '../../core/index.js';
import { DOCKER_ENGINES, STATE_STORE } from '../../contracts/index.js';
import { BY, DueInRuns, rolloutSkip } from './gate.js';
import { RolloutLedger } from './ledger.js';
import { haltReason, release, type Rollout } from './machine.js';
import { NextStages } from './next-stage.js';
import type { RolloutOptions } from './options.js';
import { recordRun } from './outcomes.js';
import { rolloutRoutes } from './routes.js';
import { verifyStage } from './verify.js';

export const PLUGIN_NAME = 'rollouts';

export function startRollouts(core: TidewatchCore, options: RolloutOptions): void {
  const logger = core.logger.child({ plugin: PLUGIN_NAME });
  const ledger = new RolloutLedger(core.services.require(STATE_STORE));
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

  // Last among the reviewers: the candidate as every other review left it (a lower candidate is noted again).
  core.hooks.review.tap({ name: PLUGIN_NAME, stage: STAGES.review.explain + 10 }, (staleness, target, ctx) => {
    due.note(target, staleness, ctx);
    return staleness;
  });
  // After the windows (STAGES.gate.schedule): a stage waits only for what may otherwise be applied now.
  core.hooks.gate.tapPromise({ name: BY, stage: STAGES.gate.schedule + 5 }, (target, staleness, ctx) =>
    rolloutSkip(
      {
        ledger,
        due,
        logger,
        verify: (stage, signal) => verifyStage(stage, core.services.get(DOCKER_ENGINES), signal),
        halted: announceHalt,
        soakMs,
      },
      target,
      staleness,
      ctx,
    ),
  );
  core.hooks.event.tap(PLUGIN_NAME, (event) => {
    if (event.type !== 'run_report' || event.data.kind !== 'update') return;
    const { changed, halted } = recordRun({ ledger, soakMs }, event.data.report);
    for (const rollout of halted) announceHalt(rollout);
    for (const rollout of changed) next.schedule(rollout);
  });
  rolloutRoutes(core, {
    ledger,
    release: (id, by) => {
      const rollout = ledger.get(id);
      if (!rollout) return undefined;
      if (!release(rollout, by, soakMs, new Date())) return `rollout ${id} is ${rollout.state}, not halted`;
      ledger.save(rollout);
      logger.info({ rollout: id, by }, 'rollout released');
      next.schedule(rollout);
      return rollout;
    },
  });
  // A restart keeps the wait: every soak still running gets its timer back.
  for (const rollout of ledger.active()) next.schedule(rollout);
  core.onClose(() => next.close());
  if (soakMs > 0) logger.info({ rollout_soak_ms: soakMs, going_on: ledger.active().length }, 'staged rollouts');
}
