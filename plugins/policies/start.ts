// The policies plugin at work (docs/policies.md): the window and approval gates, the approvals ledger in the
// state store, an approval's own runs, the UPDATE_POLICIES service, and the /v1/approvals routes on the HTTP
// API's registration point.
import {
  STAGES,
  STATE_STORE,
  UPDATE_POLICIES,
  bareDigest,
  containerKey,
  targetKey,
  type ApprovalEntry,
  type TidewatchCore,
  type UpdateReport,
} from '../../core/index.js';
import { ApprovalLedger } from './approval-ledger.js';
import { JudgedInRuns, approvalSkip } from './approval-gate.js';
import { approvalRoutes } from './approval-routes.js';
import { ApprovalRuns } from './approval-runs.js';
import type { PolicyOptions } from './options.js';
import { Policies } from './policies-service.js';
import { WindowBook, windowSkip } from './window-gate.js';

export const PLUGIN_NAME = 'policies';

export function startPolicies(core: TidewatchCore, options: PolicyOptions): void {
  const logger = core.logger.child({ plugin: PLUGIN_NAME });
  const store = core.services.require(STATE_STORE);
  const ledger = new ApprovalLedger(store);
  const runs = new ApprovalRuns();
  const windows = new WindowBook(options.updateWindows);
  const changed = (entry: ApprovalEntry): void => core.emit('approval', { entry, pending: ledger.pendingCount() });
  const policies = new Policies({ core, store, ledger, runs, windows, logger, changed });
  core.services.provide(UPDATE_POLICIES, policies);
  runs.tap(core);

  const judged = new JudgedInRuns();
  const approvalGate = { ledger, runs, policy: options.approval, logger, asked: changed, judged };
  core.hooks.gate.tapPromise({ name: PLUGIN_NAME, stage: STAGES.gate.consent }, async (target, staleness, ctx) =>
    approvalSkip(approvalGate, target, staleness, ctx),
  );
  core.hooks.gate.tapPromise({ name: PLUGIN_NAME, stage: STAGES.gate.schedule }, async (target, staleness, ctx) =>
    windowSkip(windows, target, staleness, ctx, logger, { bypasses: (c) => runs.bypassesWindow(c) }),
  );
  core.hooks.event.tap(PLUGIN_NAME, (event) => {
    if (event.type === 'run_report' && event.data.kind === 'update') settle(ledger, event.data.report, judged.take(event.data.report.runId), changed);
  });
  approvalRoutes(core, policies);
  if (options.updateWindows.length > 0 || options.approval !== 'none') {
    logger.info({ windows: options.updateWindows, approval: options.approval }, 'update windows and approvals');
  }
}

/**
 * After an update run: an open or approved entry of a container the run replaced is `applied` when the run
 * applied exactly its digest, and `superseded` when the container moved on to another image — unless the run
 * judged that very entry and applied a lower candidate that needed no approval: that question still stands.
 */
function settle(ledger: ApprovalLedger, report: UpdateReport, judged: ReadonlyMap<string, string>, changed: (entry: ApprovalEntry) => void): void {
  for (const result of report.results) {
    if (result.outcome !== 'updated') continue;
    const key = targetKey(result.target);
    const check = report.checks.find((c) => c.target.id === result.target.id);
    const digest = check?.staleness.latestDigest ? bareDigest(check.staleness.latestDigest) : '';
    for (const entry of ledger.all()) {
      if (entry.container !== key.name || (entry.host ?? '') !== (key.host ?? '')) continue;
      if (entry.state !== 'pending' && entry.state !== 'deferred' && entry.state !== 'approved') continue;
      if (entry.latest_digest !== digest && judged.get(containerKey(key)) === entry.id) continue;
      const next = ledger.update(entry.id, entry.latest_digest === digest ? 'applied' : 'superseded', {
        ...(entry.decided_at ? { decided_at: entry.decided_at } : { decided_at: new Date().toISOString() }),
        ...(entry.decided_by ? { decided_by: entry.decided_by } : {}),
      });
      if (next) changed(next);
    }
  }
}
