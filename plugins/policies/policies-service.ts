// UPDATE_POLICIES (docs/policies.md): what the windows and approvals say of a container, and a person's
// decisions. A decision changes the entry at once (so a burst of approve calls applies a candidate once: every
// call after the first finds it no longer open and gets 409), is written to the audit trail, and an approval
// applies through the one exact plan (docs/plans.md) without waiting for it (202): the entry turns `applied` when the run has
// replaced the container, and GET /v1/approvals or the event stream say so.
import {
  errorMessage,
  exactNamePattern,
  type ApprovalEntry,
  type Logger,
  type Target,
  type TidewatchCore,
} from '../../core/index.js';
import type { RegistryClientService } from '../../contracts/index.js';
import type { ContainerKey, StateStore } from '../../contracts/index.js';
import type { ApprovalDecision, DecisionOptions, DecisionOutcome, PolicyStatus, UpdatePolicies } from './contracts.js';
import type { ApprovalIdentity } from './approval-identity.js';
import { belongsTo, isOpen, type ApprovalLedger } from './approval-ledger.js';
import type { ApprovalRuns } from './approval-runs.js';
import { candidateGone } from './candidate-check.js';
import { retag } from './retag.js';
import { APPROVAL_TRIGGER } from './run-kind.js';
import type { WindowBook } from './window-gate.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

export const DEFAULT_DEFER_MS = 24 * 3_600_000;

export interface PoliciesDeps {
  readonly core: TidewatchCore;
  readonly store: StateStore;
  readonly ledger: ApprovalLedger;
  readonly runs: ApprovalRuns;
  readonly windows: WindowBook;
  readonly logger: Logger;
  /** An entry changed state: the approval event. */
  readonly changed: (entry: ApprovalEntry) => void;
  readonly identity: ApprovalIdentity;
  /** The registry plugin's reads (absent without it): approve checks the candidate is still there. */
  readonly registry: () => RegistryClientService | undefined;
}

function keyOfEntry(entry: ApprovalEntry): ContainerKey {
  return { name: entry.container, ...(entry.host ? { host: entry.host } : {}) };
}

const AUDIT_OUTCOME: Record<ApprovalDecision, string> = { approve: 'approved', reject: 'rejected', defer: 'deferred' };

export class Policies implements UpdatePolicies {
  constructor(readonly deps: PoliciesDeps) {}

  statusOf(target: Target, updateAvailable: boolean, now = new Date()): PolicyStatus {
    const holder = { id: target.id, host: target.host };
    const open = this.deps.ledger.openFor(holder);
    let approval: PolicyStatus['approval'];
    if (open) approval = open.state === 'deferred' ? 'deferred' : 'pending';
    else if (updateAvailable && this.deps.ledger.lastFor(holder)?.state === 'rejected') approval = 'rejected';
    let nextWindow: Date | undefined;
    if (updateAvailable) {
      const state = this.deps.windows.stateOf(target, now);
      if (!(state instanceof Error) && !state.open) nextWindow = state.next;
    }
    return { ...(nextWindow ? { nextWindow } : {}), ...(approval ? { approval } : {}) };
  }

  approvals(): readonly ApprovalEntry[] {
    return this.deps.ledger.all();
  }

  pendingFor(key: ContainerKey & { readonly id?: string }): ApprovalEntry | undefined {
    const wanted = (e: ApprovalEntry) =>
      e.state === 'pending' && (key.id !== undefined ? belongsTo(e, { id: key.id, host: key.host }) : e.container === key.name && (e.host ?? '') === (key.host ?? ''));
    return this.deps.ledger.all().find(wanted);
  }

  async decide(id: string, decision: ApprovalDecision, options: DecisionOptions): Promise<DecisionOutcome> {
    const { ledger } = this.deps;
    const found = ledger.get(id);
    if (!found) return { status: 'unknown' };
    if (!isOpen(found)) return conflict(found);
    let target: Target | undefined;
    if (decision === 'approve') {
      const located = await this.#locate(found, options.signal);
      if ('conflict' in located) return located.conflict;
      target = located.target;
      // One registry request: a candidate deleted since it was asked about can never be applied.
      const gone = await candidateGone(this.deps.registry(), ledger.get(id) as ApprovalEntry, this.deps.logger, options.signal);
      if (gone) {
        const superseded = ledger.supersede(id, gone, new Date());
        if (superseded) this.deps.changed(superseded);
        return { status: 'conflict', entry: superseded ?? found, reason: gone };
      }
    }
    // Looked at again after the wait: a concurrent call may have decided meanwhile.
    const current = ledger.get(id) as ApprovalEntry;
    if (!isOpen(current)) return conflict(current);
    const decidedAt = new Date();
    const actor = options.actor ?? (options.by === 'mqtt' ? { kind: 'mqtt' as const, name: 'mqtt' } : undefined);
    const fields = { decided_at: decidedAt.toISOString(), decided_by: options.by, ...(actor ? { actor } : {}) };
    const entry =
      decision === 'approve'
        ? ledger.update(id, 'approved', fields)
        : decision === 'reject'
          ? ledger.update(id, 'rejected', fields)
          : ledger.update(id, 'deferred', { ...fields, deferred_until: new Date(decidedAt.getTime() + (options.deferMs ?? DEFAULT_DEFER_MS)).toISOString() });
    const decided = entry as ApprovalEntry;
    this.deps.changed(decided);
    await this.#audit(decided, decision);
    if (decision !== 'approve' || !target) return { status: 'decided', entry: decided };
    // Inside its window (or with now=true) it is applied at once; otherwise the window's first run applies it.
    const window = this.deps.windows.stateOf(target, decidedAt);
    const windowOpen = !(window instanceof Error) && window.open;
    if (!options.now && !windowOpen) return { status: 'decided', entry: decided };
    const runId = options.runId ?? nodeCrypto().randomUUID();
    this.#apply(decided, runId, options.now === true);
    return { status: 'decided', entry: decided, runId };
  }

  /**
   * The container the entry was asked about, among the watched ones now (docs/policies.md#whose-approval-it-is):
   * another container under the name, or none, is a conflict with the reason, and the entry is superseded.
   */
  async #locate(entry: ApprovalEntry, signal: AbortSignal | undefined): Promise<{ target: Target } | { conflict: DecisionOutcome }> {
    const key = keyOfEntry(entry);
    // The selection itself may judge the entry (approval-identity.ts): looked at again after it.
    const targets = await this.deps.core.targets({
      filters: { containers: [exactNamePattern(key.name)], ...(key.host ? { hosts: [key.host] } : {}) },
      ...(signal ? { signal } : {}),
    });
    let current = this.deps.ledger.get(entry.id) as ApprovalEntry;
    if (current.container_id === undefined && isOpen(current)) current = this.deps.identity.bindLegacy(current, targets, new Date()) ?? (this.deps.ledger.get(entry.id) as ApprovalEntry);
    if (!isOpen(current)) return { conflict: conflict(current) };
    const target = targets.find((t) => belongsTo(current, { id: t.id, host: t.host }));
    if (target) return { target };
    const reason =
      targets.length > 0
        ? `container ${key.name} was replaced by another container that Tidewatch did not create`
        : `container ${key.name} is no longer watched or is gone`;
    const superseded = this.deps.ledger.supersede(current.id, reason, new Date());
    if (superseded) this.deps.changed(superseded);
    return { conflict: { status: 'conflict', entry: superseded ?? current, reason } };
  }

  /**
   * The approval applied through the one exact plan (docs/plans.md, decisions §22), in the background: its answer
   * came with 202 already. The plan is decided in the approval's run, in which this plugin answers the container
   * with exactly the approved candidate (approval-runs.ts) and the gates judge it as in any update run; applying
   * the plan, under the same run id, then pulls and runs exactly that digest, whatever the tag names by then. A
   * container changed between the two is skipped `changed since plan`, and the entry stays approved.
   */
  #apply(entry: ApprovalEntry, runId: string, now: boolean): void {
    const key = keyOfEntry(entry);
    const request = {
      trigger: APPROVAL_TRIGGER,
      // The update an approval applies carries the approver as its actor (docs/people.md).
      ...(entry.actor ? { actor: entry.actor } : {}),
      runId,
    };
    const { core, logger } = this.deps;
    this.deps.runs.begin(runId, entry, now);
    const applied = async (): Promise<void> => {
      const plan = await core.plan({ ...request, filters: { containers: [exactNamePattern(key.name)], ...(key.host ? { hosts: [key.host] } : {}) } });
      if (plan.steps.length === 0) {
        const why = plan.skipped.map((skip) => skip.reason).join('; ') || 'nothing to update';
        logger.warn({ container: key.name, approval: entry.id, plan_id: plan.planId, reason: why }, 'the approved update is not applied now');
      }
      await core.applyPlan(plan.planId, request);
    };
    applied()
      .catch((err: unknown) => logger.error({ container: key.name, approval: entry.id, err: errorMessage(err) }, 'the approved update failed to run'))
      .finally(() => this.deps.runs.end(runId));
  }

  async #audit(entry: ApprovalEntry, decision: ApprovalDecision): Promise<void> {
    try {
      await this.deps.store.appendAudit({
        action: decision,
        container: entry.container,
        ...(entry.host ? { host: entry.host } : {}),
        trigger: entry.decided_by ?? 'api',
        ...(entry.actor ? { actor: entry.actor } : {}),
        run_id: '',
        to: { image: entry.latest_tag ? retag(entry.image, entry.latest_tag) : entry.image, digest: entry.latest_digest, image_id: '' },
        outcome: AUDIT_OUTCOME[decision],
      });
    } catch (err) {
      this.deps.logger.error({ container: entry.container, err: errorMessage(err) }, 'could not write the audit trail');
    }
  }
}

/** A 409 for an entry no longer open, with why it was superseded when it was. */
function conflict(entry: ApprovalEntry): DecisionOutcome {
  const why = entry.state === 'superseded' && entry.reason ? `: ${entry.reason}` : ', no longer pending';
  return { status: 'conflict', entry, reason: `approval ${entry.id} is ${entry.state}${why}` };
}
