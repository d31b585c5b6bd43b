// What an update run did to a rollout's containers (docs/rollouts.md): read from the run's report, every
// replacement of a rollout's candidate is recorded in its stage. A failure halts the rollout; the stage whose
// replacements have all passed their proof starts its soak.
import { bareDigest, type ApplyResult, type UpdateReport } from '../../core/index.js';
import { candidateOf } from './gate.js';
import type { RolloutLedger } from './ledger.js';
import { record, type Rollout } from './machine.js';

export interface OutcomeDeps {
  readonly ledger: RolloutLedger;
  readonly soakMs: number;
  readonly now?: () => Date;
}

function sameTarget(a: ApplyResult['target'], b: ApplyResult['target']): boolean {
  return a.id === b.id && a.host === b.host && a.runtime === b.runtime;
}

/** The rollouts the run changed, and those it halted. */
export function recordRun(deps: OutcomeDeps, report: UpdateReport): { changed: Rollout[]; halted: Rollout[] } {
  const changed = new Map<string, Rollout>();
  const halted: Rollout[] = [];
  const now = deps.now?.() ?? new Date();
  for (const result of report.results) {
    if (result.outcome !== 'updated' && result.outcome !== 'failed') continue;
    const check = report.checks.find((c) => sameTarget(c.target, result.target));
    if (!check) continue;
    const candidate = candidateOf(result.target, check.staleness);
    if (!candidate) continue;
    const rollout = deps.ledger.get(candidate.id);
    if (!rollout || rollout.state === 'done' || bareDigest(rollout.digest) !== candidate.digest) continue;
    const outcome = record(
      rollout,
      {
        host: result.target.host ?? '',
        container: result.target.name,
        outcome: result.outcome,
        ...(result.newContainerId ? { newId: result.newContainerId } : result.outcome === 'updated' ? { newId: result.target.id } : {}),
        ...(result.error ? { error: result.error } : {}),
      },
      deps.soakMs,
      now,
    );
    if (!outcome.changed) continue;
    changed.set(rollout.id, rollout);
    if (outcome.halted) halted.push(rollout);
  }
  for (const rollout of changed.values()) deps.ledger.save(rollout);
  return { changed: [...changed.values()], halted };
}
