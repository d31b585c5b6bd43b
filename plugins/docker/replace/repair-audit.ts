// A start-up repair is a change like any replacement: each container it restored or removed is written to
// the audit trail (docs/state.md#the-audit-trail) with the trigger `startup` and no run id.
import { errorMessage, type Logger } from '../../../core/index.js';
import type { StateStore } from '../../../contracts/index.js';
import type { RepairReport } from './repair.js';

export async function auditRepair(store: StateStore | undefined, report: RepairReport, host: string, logger: Logger): Promise<void> {
  if (!store) return;
  const entries = [
    ...report.restored.map((container) => ({ container, outcome: 'restored' })),
    ...report.removed.map((container) => ({ container, outcome: 'removed' })),
    ...report.predecessors.map((container) => ({ container, outcome: 'removed_predecessor' })),
  ];
  for (const { container, outcome } of entries) {
    try {
      await store.appendAudit({ action: 'repair', container, host, trigger: 'startup', actor: { kind: 'startup', name: 'startup' }, run_id: '', outcome });
    } catch (err) {
      logger.error({ container, err: errorMessage(err) }, 'could not write the audit trail');
    }
  }
}
