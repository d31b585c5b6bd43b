// The approval gate (docs/policies.md#approvals): an update that needs a person's consent is never applied by
// a run on its own. The first run that finds the candidate asks (a pending entry for exactly that digest,
// announced once); later runs skip it while it is pending, deferred or rejected; an approved candidate passes
// (inside its window). A newer candidate supersedes an open entry and asks again. A person's targeted update
// is consent in itself, and an approval's own run applies the approved digest.
import {
  FINDINGS,
  REGISTRY_PATH,
  bareDigest,
  readFinding,
  type ApprovalEntry,
  type Logger,
  type RunContext,
  type Skip,
  type Staleness,
  type Target,
} from '../../core/index.js';
import type { ApprovalLedger } from './approval-ledger.js';
import { needsApproval, policyOf } from './approval-policy.js';
import type { ApprovalRuns } from './approval-runs.js';
import type { ApprovalPolicy } from './options.js';
import { isAutomaticRun } from './run-kind.js';

export const BY = 'policies';

export interface ApprovalGateDeps {
  readonly ledger: ApprovalLedger;
  readonly runs: ApprovalRuns;
  readonly policy: ApprovalPolicy;
  readonly logger: Logger;
  /** A new or re-opened pending entry: announced (event, notification, Home Assistant). */
  readonly asked: (entry: ApprovalEntry) => void;
  readonly now?: () => Date;
  /** What each run judged (one question per container and run; kept for the run's settling). */
  readonly judged: JudgedInRuns;
}

/** How a candidate is named in reasons: its tag when it is a tag update, else its short digest. */
export function candidateName(entry: Pick<ApprovalEntry, 'latest_tag' | 'latest_digest'>): string {
  return entry.latest_tag ?? entry.latest_digest.slice(0, 19);
}

export function approvalSkip(deps: ApprovalGateDeps, target: Target, staleness: Staleness, ctx: RunContext): Skip | undefined {
  if (ctx.kind !== 'update' || !staleness.stale || staleness.error || staleness.targetImageId) return undefined;
  const policy = policyOf(target, deps.policy);
  if (policy instanceof Error) {
    deps.logger.warn({ container: target.name, err: policy.message }, 'the approval label cannot be read; every update waits for a person');
  }
  const tags = readFinding(staleness, FINDINGS.tags);
  if (!needsApproval(policy instanceof Error ? 'all' : policy, tags?.updateKind)) return undefined;
  const holder = { id: target.id, host: target.host };
  const digest = staleness.latestDigest ? bareDigest(staleness.latestDigest) : '';
  const own = deps.runs.entryOf(ctx, target);
  if (own) return own.latest_digest === digest ? undefined : { reason: `approval: the approved candidate ${candidateName(own)} is not the one found`, by: BY };
  // A person's targeted update (the dashboard's Update, POST /v1/update?container=…) is consent in itself.
  if (!isAutomaticRun(ctx)) return undefined;
  if (staleness.source !== REGISTRY_PATH || digest === '') {
    return { reason: 'approval needed, but only a registry digest can be approved: update it with a targeted update', by: BY };
  }
  // Under a tag policy the gate step offers lower candidates after a refusal (docs/plugins.md#candidates-through-gates):
  // one that needs no approval (a minor under --approval major) may pass, but a person is asked about the newest
  // candidate only, never about each lower one in turn (each would supersede the last).
  const judged = deps.judged.of(ctx.runId);
  const id = judgedKey(target);
  if (judged.has(id)) return { reason: 'approval needed, and a person is asked about the newest candidate only', by: BY };
  judged.set(id, '');
  const now = deps.now?.() ?? new Date();
  const known = deps.ledger.forCandidate(holder, digest);
  if (known) judged.set(id, known.id);
  switch (known?.state) {
    case 'approved':
      return undefined;
    case 'rejected':
      return { reason: `approval rejected for ${candidateName(known)}: a newer candidate asks again`, by: BY };
    case 'pending':
      return { reason: `approval pending for ${candidateName(known)} since ${known.requested_at}`, by: BY };
    case 'deferred': {
      const until = new Date(known.deferred_until ?? 0);
      if (until.getTime() > now.getTime()) return { reason: `approval deferred until ${until.toISOString()}`, by: BY, until };
      judged.set(id, known.id);
      const again = deps.ledger.update(known.id, 'pending');
      if (again) deps.asked(again);
      return { reason: `approval pending for ${candidateName(known)} again after its deferral`, by: BY };
    }
    default: {
      // Never asked about this digest (or asked, superseded, and found again): ask now.
      const { entry } = deps.ledger.request(
        {
          container: target.name,
          container_id: target.id,
          ...(target.host ? { host: target.host } : {}),
          image: target.image,
          latest_digest: digest,
          ...(tags?.currentTag ? { current_tag: tags.currentTag } : {}),
          ...(staleness.latestTag ? { latest_tag: staleness.latestTag } : {}),
          ...(tags?.updateKind ? { update_kind: tags.updateKind } : {}),
        },
        now,
      );
      judged.set(id, entry.id);
      deps.asked(entry);
      return { reason: `approval pending for ${candidateName(entry)}: asked now`, by: BY };
    }
  }
}

/** How a run's judgements name a container: its engine and runtime id (docs/policies.md#whose-approval-it-is). */
export function judgedKey(target: Pick<Target, 'id' | 'host'>): string {
  return `${target.host ?? ''}|${target.id}`;
}

/**
 * Per update run, the containers whose candidate the approval gate judged, with the entry it judged: a person
 * is asked once per container and run, and the run's settling keeps that entry open when the run applied a lower
 * candidate that needed no approval. Bounded: a run whose report never comes is forgotten after 64 others.
 */
export class JudgedInRuns {
  readonly #runs = new Map<string, Map<string, string>>();

  of(runId: string): Map<string, string> {
    let judged = this.#runs.get(runId);
    if (!judged) {
      if (this.#runs.size >= 64) this.#runs.delete(this.#runs.keys().next().value as string);
      this.#runs.set(runId, (judged = new Map()));
    }
    return judged;
  }

  /** The run's judgements, forgotten as they are handed over. */
  take(runId: string): ReadonlyMap<string, string> {
    const judged = this.#runs.get(runId) ?? new Map<string, string>();
    this.#runs.delete(runId);
    return judged;
  }
}
