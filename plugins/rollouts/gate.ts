// The rollout gate (docs/rollouts.md): in a run that applies on its own (a schedule, start-up, a webhook, an
// untargeted update, a rollout's own next stage), a candidate due on hosts of several stages is let through
// stage by stage. Which containers a candidate is due on is learned in the same run, before any gate: the review
// tap notes every stale answer with its digest. A person's targeted update applies at once.
import {
  errorMessage,
  repositoryName,
  bareDigest,
  tryParseImageReference,
  type Logger,
  type RunContext,
  type Skip,
  type Staleness,
  type Target,
} from '../../core/index.js';
import { rolloutId, type RolloutLedger } from './ledger.js';
import {
  admit,
  createRollout,
  halt,
  join,
  needsStaging,
  soaked,
  supersede,
  type DueMember,
  type Rollout,
} from './machine.js';
import type { Verdict } from './verify.js';

export const BY = 'rollouts';
/** The trigger of the runs this plugin starts for a rollout's next stage: an automatic run like a schedule's. */
export const ROLLOUT_TRIGGER = 'rollout';
const AUTOMATIC_TRIGGERS: ReadonlySet<string> = new Set(['schedule', 'startup', 'approval', ROLLOUT_TRIGGER]);

/** Runs that apply on their own, as windows see them (docs/policies.md#update-windows). */
export function isAutomaticRun(ctx: Pick<RunContext, 'targeted' | 'trigger'>): boolean {
  return !ctx.targeted || AUTOMATIC_TRIGGERS.has(ctx.trigger) || ctx.trigger.startsWith('webhook:');
}

export interface Candidate {
  readonly id: string;
  readonly repository: string;
  readonly digest: string;
}

/** The candidate a stale answer offers: its repository (normalised) and digest; undefined when there is none to stage. */
export function candidateOf(target: Target, staleness: Staleness): Candidate | undefined {
  if (!staleness.stale || staleness.error || staleness.targetImageId || !staleness.latestDigest) return undefined;
  const ref = tryParseImageReference(target.image);
  if (!ref) return undefined;
  const repository = repositoryName(ref);
  const digest = bareDigest(staleness.latestDigest);
  return { id: rolloutId(repository, digest), repository, digest };
}

export function stageOf(target: Pick<Target, 'stage'>): number {
  return target.stage ?? 1;
}

export function memberOf(target: Target): DueMember {
  return { host: target.host ?? '', container: target.name, stage: stageOf(target) };
}

/** What a run found due, by candidate id: noted by the review tap, read by the gate of the same run. */
export class DueInRuns {
  readonly #runs = new WeakMap<RunContext, Map<string, { candidate: Candidate; image: string; members: Map<string, DueMember> }>>();

  note(target: Target, staleness: Staleness, ctx: RunContext): void {
    if (ctx.kind !== 'update') return;
    const candidate = candidateOf(target, staleness);
    if (!candidate) return;
    let run = this.#runs.get(ctx);
    if (!run) this.#runs.set(ctx, (run = new Map()));
    let due = run.get(candidate.id);
    if (!due) run.set(candidate.id, (due = { candidate, image: target.image, members: new Map() }));
    const member = memberOf(target);
    // A lower candidate judged later replaces what the target was due for.
    for (const other of run.values()) other.members.delete(`${member.host}\u0000${member.container}`);
    due.members.set(`${member.host}\u0000${member.container}`, member);
  }

  of(ctx: RunContext, id: string): { image: string; members: DueMember[] } | undefined {
    const due = this.#runs.get(ctx)?.get(id);
    return due ? { image: due.image, members: [...due.members.values()] } : undefined;
  }
}

export interface GateDeps {
  readonly ledger: RolloutLedger;
  readonly due: DueInRuns;
  readonly logger: Logger;
  readonly verify: (stage: Rollout['stages'][number], signal: AbortSignal) => Promise<Verdict>;
  /** A rollout halted (by a soak that failed here): tell people. */
  readonly halted: (rollout: Rollout) => void;
  readonly now?: () => Date;
  /** --rollout-soak, for a stage that is settled as soon as it starts. */
  readonly soakMs?: number;
}

/** A newer candidate for the same containers ends the older rollouts of that repository, halted or not. */
function supersedeOlder(deps: GateDeps, candidate: Candidate, members: readonly DueMember[], now: Date): void {
  for (const older of deps.ledger.active()) {
    if (older.repository !== candidate.repository || older.id === candidate.id) continue;
    const shares = older.stages.some((s) => s.members.some((m) => members.some((d) => d.host === m.host && d.container === m.container)));
    if (!shares) continue;
    supersede(older, candidate.id, now);
    deps.ledger.save(older);
    deps.logger.info({ rollout: older.id, by: candidate.id }, 'rollout superseded by a newer candidate');
  }
}

function skipOf(reason: string, code: 'waiting' | 'halted', until?: Date): Skip {
  // Not `everyCandidate`: a lower candidate is another rollout, judged on its own.
  return { reason, by: BY, code, ...(until ? { until } : {}) };
}

/** The rollout of a due candidate: the one going on, or a new one when it is due on several stages. */
function rolloutFor(deps: GateDeps, candidate: Candidate, target: Target, ctx: RunContext, now: Date): Rollout | undefined {
  const due = deps.due.of(ctx, candidate.id) ?? { image: target.image, members: [memberOf(target)] };
  supersedeOlder(deps, candidate, due.members, now);
  const known = deps.ledger.get(candidate.id);
  if (known) {
    if (known.state !== 'done' && due.members.map((m) => join(known, m)).some(Boolean)) deps.ledger.save(known);
    return known;
  }
  if (!needsStaging(due.members)) return undefined;
  const rollout = createRollout({ id: candidate.id, repository: candidate.repository, image: due.image, digest: candidate.digest }, due.members, now);
  deps.ledger.save(rollout);
  deps.logger.info({ rollout: rollout.id, image: rollout.image, stages: rollout.stages.map((s) => s.stage) }, 'staged rollout started');
  return rollout;
}

export async function rolloutSkip(deps: GateDeps, target: Target, staleness: Staleness, ctx: RunContext): Promise<Skip | undefined> {
  if (ctx.kind !== 'update' || !isAutomaticRun(ctx)) return undefined;
  const candidate = candidateOf(target, staleness);
  if (!candidate) return undefined;
  const now = deps.now?.() ?? new Date();
  const rollout = rolloutFor(deps, candidate, target, ctx, now);
  if (!rollout) return undefined;
  // Each pass settles at most one stage; a rollout has few.
  for (let round = 0; round <= rollout.stages.length; round++) {
    const before = JSON.stringify(rollout);
    const admission = admit(rollout, stageOf(target), now);
    if (JSON.stringify(rollout) !== before) deps.ledger.save(rollout);
    switch (admission.kind) {
      case 'pass':
        return undefined;
      case 'wait':
        return skipOf(admission.reason, 'waiting', admission.until);
      case 'halted':
        return skipOf(admission.reason, 'halted');
      case 'verify': {
        const { stage } = admission;
        let verdict: Verdict;
        try {
          verdict = await ctx.memo(`rollouts:verify:${rollout.id}:${stage.stage}`, () => deps.verify(stage, ctx.signal));
        } catch (err) {
          verdict = { kind: 'unknown', why: errorMessage(err) };
        }
        if (verdict.kind === 'unknown') return skipOf(`rollout waiting: stage ${stage.stage} not verified (${verdict.why})`, 'waiting');
        if (verdict.kind === 'failed') {
          if (rollout.state !== 'halted') {
            halt(rollout, stage, verdict.member, verdict.why, now);
            deps.ledger.save(rollout);
            deps.halted(rollout);
          }
          continue;
        }
        soaked(rollout, stage, now, deps.soakMs);
        deps.ledger.save(rollout);
        deps.logger.info({ rollout: rollout.id, stage: stage.stage }, 'rollout stage soaked: the next stage goes on');
      }
    }
  }
  return skipOf(`rollout waiting: stage ${stageOf(target)}`, 'waiting');
}
