// Applying an approved candidate (docs/policies.md#approvals): the approval's plan (docs/plans.md) is decided in a
// run of its own, in which this plugin answers the container's staleness with exactly the approved digest (and
// tag), so that every later step — signature review, the other gates — judges that candidate and no other, even
// when the tag has moved since it was asked about; applying the plan then runs exactly that digest.
// An approval given while the window was closed is applied the same way by the first automatic run inside
// the window: that run answers the container with the approved candidate, whatever the tag says by then (a
// newer candidate asks on its own at the next run).
import {
  FINDINGS,
  REGISTRY_PATH,
  STAGES,
  withFinding,
  type ApprovalEntry,
  type RunContext,
  type Staleness,
  type Target,
  type TidewatchCore,
} from '../../core/index.js';
import { belongsTo, type ApprovalLedger } from './approval-ledger.js';
import { isAutomaticRun } from './run-kind.js';
import type { WindowBook } from './window-gate.js';

interface ApprovalRun {
  readonly entry: ApprovalEntry;
  /** Approved with now=true: the window does not hold it back. */
  readonly now: boolean;
}

export interface ApprovedInWindow {
  readonly ledger: ApprovalLedger;
  readonly windows: WindowBook;
  readonly now?: () => Date;
}

function answerOf(entry: ApprovalEntry): Staleness {
  const answer: Staleness = {
    source: REGISTRY_PATH,
    stale: true,
    latestDigest: entry.latest_digest,
    ...(entry.latest_tag ? { latestTag: entry.latest_tag } : {}),
  };
  // The tag facts travel in the findings slot (docs/plugins.md#findings), where the approval gate and displays read them.
  const tags = { ...(entry.update_kind ? { updateKind: entry.update_kind } : {}), ...(entry.current_tag ? { currentTag: entry.current_tag } : {}) };
  return Object.keys(tags).length > 0 ? withFinding(answer, FINDINGS.tags, tags) : answer;
}

export class ApprovalRuns {
  readonly #runs = new Map<string, ApprovalRun>();

  begin(runId: string, entry: ApprovalEntry, now: boolean): void {
    this.#runs.set(runId, { entry, now });
  }

  end(runId: string): void {
    this.#runs.delete(runId);
  }

  /** The entry this run applies to `target`, when it is an approval's run for that container. */
  entryOf(ctx: Pick<RunContext, 'runId'>, target: Target): ApprovalEntry | undefined {
    const run = this.#runs.get(ctx.runId);
    return run && belongsTo(run.entry, { id: target.id, host: target.host }) ? run.entry : undefined;
  }

  bypassesWindow(ctx: Pick<RunContext, 'runId'>): boolean {
    return this.#runs.get(ctx.runId)?.now === true;
  }

  /**
   * The staleness answer of an approval's run, and of an automatic update run inside the window of a container
   * with an approved entry: before every source, from the entry. Costs no request: the ledger is in memory.
   */
  tap(core: TidewatchCore, approved: ApprovedInWindow): void {
    core.hooks.checkStaleness.tap({ name: 'policies', stage: STAGES.checkStaleness.local - 4 }, (target, ctx) => {
      const entry = this.entryOf(ctx, target) ?? approvedInWindow(approved, target, ctx);
      return entry ? answerOf(entry) : undefined;
    });
  }
}

function approvedInWindow(deps: ApprovedInWindow, target: Target, ctx: RunContext): ApprovalEntry | undefined {
  if (ctx.kind !== 'update' || !isAutomaticRun(ctx)) return undefined;
  const entry = deps.ledger.approvedFor({ id: target.id, host: target.host });
  if (!entry) return undefined;
  const window = deps.windows.stateOf(target, deps.now?.() ?? new Date());
  return !(window instanceof Error) && window.open ? entry : undefined;
}
