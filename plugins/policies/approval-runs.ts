// Applying an approved candidate (docs/policies.md#approvals): a targeted update run through the normal path,
// under the update lock, in which this plugin answers the container's staleness with exactly the approved
// digest (and tag), so that every later step — signature review, the other gates, the runtime's pinned pull —
// judges and applies that candidate and no other, even when the tag has moved since it was asked about.
import {
  REGISTRY_PATH,
  STAGES,
  containerKey,
  targetKey,
  type ApprovalEntry,
  type RunContext,
  type Staleness,
  type Target,
  type TidewatchCore,
} from '../../core/index.js';

interface ApprovalRun {
  readonly entry: ApprovalEntry;
  /** Approved with now=true: the window does not hold it back. */
  readonly now: boolean;
}

function keyOfEntry(entry: ApprovalEntry): string {
  return containerKey({ name: entry.container, ...(entry.host ? { host: entry.host } : {}) });
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
    return run && keyOfEntry(run.entry) === containerKey(targetKey(target)) ? run.entry : undefined;
  }

  bypassesWindow(ctx: Pick<RunContext, 'runId'>): boolean {
    return this.#runs.get(ctx.runId)?.now === true;
  }

  /** The staleness answer of an approval's run: before every source, from the entry. */
  tap(core: TidewatchCore): void {
    core.hooks.checkStaleness.tap({ name: 'policies', stage: STAGES.checkStaleness.local - 4 }, (target, ctx) => {
      const entry = this.entryOf(ctx, target);
      if (!entry) return undefined;
      const answer: Staleness = {
        source: REGISTRY_PATH,
        stale: true,
        latestDigest: entry.latest_digest,
        ...(entry.update_kind ? { updateKind: entry.update_kind } : {}),
        ...(entry.current_tag ? { currentTag: entry.current_tag } : {}),
        ...(entry.latest_tag ? { latestTag: entry.latest_tag } : {}),
      };
      return answer;
    });
  }
}
