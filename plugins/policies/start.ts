// The policies plugin at work (docs/policies.md): the window and approval gates, the approvals ledger in the
// state store, an approval's own runs, the UPDATE_POLICIES service, and the /v1/approvals routes on the HTTP
// API's registration point.
import {
  STAGES,
  bareDigest,
  tryParseImageReference,
  type ApplyResult,
  type ApprovalEntry,
  type TidewatchCore,
  type UpdateReport,
} from '../../core/index.js';
import { STATE_STORE, REGISTRY_CLIENT } from '../../contracts/index.js';
import { UPDATE_POLICIES } from './contracts.js';
import { ApprovalIdentity } from './approval-identity.js';
import { ApprovalLedger, belongsTo, isLive } from './approval-ledger.js';
import { JudgedInRuns, approvalSkip, judgedKey } from './approval-gate.js';
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
  const identity = new ApprovalIdentity({ ledger, store, logger, changed, updating: () => core.lock.busy });
  identity.tap(core);
  const policies = new Policies({ core, store, ledger, runs, windows, logger, changed, identity, registry: () => core.services.get(REGISTRY_CLIENT) });
  core.services.provide(UPDATE_POLICIES, policies);
  runs.tap(core, { ledger, windows });

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
  approvalRoutes(core, policies, (query) => ledger.page(query));
  if (options.updateWindows.length > 0 || options.approval !== 'none') {
    logger.info({ windows: options.updateWindows, approval: options.approval }, 'update windows and approvals');
  }
}

/**
 * After an update run: a live entry (open, or approved) of a container the run replaced is `applied` when the
 * run applied exactly its digest, and `superseded` when the container moved on to another image — unless the
 * run judged that very entry and applied a lower candidate that needed no approval: that question still
 * stands. Then the container's entries follow it to the new container id the runtime reported
 * (docs/policies.md#whose-approval-it-is), the open one reading from what now runs.
 */
function settle(ledger: ApprovalLedger, report: UpdateReport, judged: ReadonlyMap<string, string>, changed: (entry: ApprovalEntry) => void): void {
  for (const result of report.results) {
    if (result.outcome === 'failed') failedApproved(ledger, report, result, changed);
    if (result.outcome !== 'updated' && result.outcome !== 'restarted') continue;
    const { target } = result;
    const holder = { id: target.id, host: target.host };
    if (result.outcome === 'updated') {
      const check = report.checks.find((c) => c.target.id === target.id);
      const digest = check?.staleness.latestDigest ? bareDigest(check.staleness.latestDigest) : '';
      for (const entry of ledger.all()) {
        if (!isLive(entry) || !belongsTo(entry, holder)) continue;
        if (entry.latest_digest !== digest && judged.get(judgedKey(target)) === entry.id) continue;
        const applied = entry.latest_digest === digest;
        const next = ledger.update(entry.id, applied ? 'applied' : 'superseded', {
          ...(entry.decided_at ? { decided_at: entry.decided_at } : { decided_at: new Date().toISOString() }),
          ...(entry.decided_by ? { decided_by: entry.decided_by } : {}),
          ...(applied ? {} : { reason: `container ${target.name} was updated to another image (${result.newImage ?? target.image})` }),
        });
        if (next) changed(next);
      }
    }
    if (result.newContainerId && result.newContainerId !== target.id) {
      const image = result.newImage ?? target.image;
      const tag = tryParseImageReference(image)?.tag;
      for (const moved of ledger.follow(target.id, result.newContainerId, target.host, { image, tag })) changed(moved);
    }
  }
}

/**
 * An approved candidate whose update failed is not left `approved` for ever: it is superseded with the error,
 * and a later run asks again when the candidate still applies.
 */
function failedApproved(ledger: ApprovalLedger, report: UpdateReport, result: ApplyResult, changed: (entry: ApprovalEntry) => void): void {
  const { target } = result;
  const check = report.checks.find((c) => c.target.id === target.id);
  const digest = check?.staleness.latestDigest ? bareDigest(check.staleness.latestDigest) : '';
  const entry = ledger.approvedFor({ id: target.id, host: target.host });
  if (!entry || entry.latest_digest !== digest) return;
  const next = ledger.supersede(entry.id, `the approved update failed: ${(result.error ?? 'unknown error').slice(0, 200)}`, new Date());
  if (next) changed(next);
}
