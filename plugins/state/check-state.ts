// Each container's last check, from every run's report (docs/state.md#last-checks): a check run's results,
// an update run's checks; a container an update replaced is recorded under its new id as up to date, and a
// target an update changed in place (a Swarm service keeps its id) under its own.
import { bareDigest, type EventPayloads } from '../../core/index.js';
import { lastCheckOf, type StateStore } from './contracts.js';

export function recordChecks(store: StateStore, data: EventPayloads['run_report']): void {
  if (data.kind === 'check') {
    for (const result of data.report.results) store.recordCheck(result.target.id, lastCheckOf(result));
    return;
  }
  const { checks, results, finishedAt } = data.report;
  const byId = new Map(checks.map((check) => [check.target.id, check]));
  for (const check of checks) store.recordCheck(check.target.id, lastCheckOf(check));
  for (const result of results) {
    if (result.outcome !== 'updated') continue;
    const check = byId.get(result.target.id);
    const latestDigest = check?.staleness.latestDigest ? bareDigest(check.staleness.latestDigest) : '';
    store.recordCheck(result.newContainerId ?? result.target.id, {
      name: result.target.name,
      ...(result.target.host ? { host: result.target.host } : {}),
      updateAvailable: false,
      latestDigest,
      checkedAt: finishedAt.toISOString(),
    });
  }
}
