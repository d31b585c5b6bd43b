// The stage state machine of one staged rollout (docs/rollouts.md), pure: no clock, no store, no engine. A
// rollout is one candidate (a repository and a digest) due on hosts of several stages. The lowest stage runs
// first; a stage whose replacements have all passed their proof soaks for --rollout-soak; once every
// replacement of it is verified still running and healthy the next stage runs. A failed replacement halts every
// later stage until a person releases the rollout or a newer candidate supersedes it.

export type RolloutState = 'running' | 'soaking' | 'halted' | 'done';
export type StageState = 'waiting' | 'running' | 'soaking' | 'halted' | 'done';
export type MemberState = 'pending' | 'updated' | 'failed';

/** One container of the rollout, on one host. */
export interface RolloutMember {
  readonly host: string;
  readonly container: string;
  state: MemberState;
  /** When it was replaced (or failed), ISO time. */
  at?: string;
  /** The replacement's container id, verified at the end of the soak. */
  new_id?: string;
  error?: string;
}

export interface RolloutStage {
  readonly stage: number;
  state: StageState;
  members: RolloutMember[];
  /** While soaking: when the next stage may start, ISO time. */
  soak_until?: string;
}

export interface Rollout {
  /** Stable for a candidate: derived from its repository and digest (ledger.ts). */
  readonly id: string;
  readonly repository: string;
  /** The image reference the first due container runs, for people. */
  readonly image: string;
  readonly digest: string;
  stages: RolloutStage[];
  state: RolloutState;
  readonly started_at: string;
  updated_at: string;
  /** The replacement that halted it. */
  halted?: { host: string; container: string; stage: number; error: string; at: string };
  /** Who lifted the halt and when. */
  released?: { at: string; by: string };
  /** The newer candidate's rollout that ended this one. */
  superseded_by?: string;
}

export interface DueMember {
  readonly host: string;
  readonly container: string;
  readonly stage: number;
}

/** What the gate answers a due container of the rollout. */
export type Admission =
  | { readonly kind: 'pass' }
  | { readonly kind: 'wait'; readonly reason: string; readonly until?: Date }
  | { readonly kind: 'halted'; readonly reason: string }
  /** The stage before soaked long enough: verify its replacements, then ask again. */
  | { readonly kind: 'verify'; readonly stage: RolloutStage };

const iso = (at: Date) => at.toISOString();

export function sameMember(a: Pick<RolloutMember, 'host' | 'container'>, b: Pick<RolloutMember, 'host' | 'container'>): boolean {
  return a.host === b.host && a.container === b.container;
}

export function hostsOf(stage: RolloutStage): string[] {
  return [...new Set(stage.members.map((m) => m.host))].sort();
}

/** The halt's reason as runs report it (docs/rollouts.md). */
export function haltReason(rollout: Rollout): string {
  return `rollout halted: ${rollout.halted?.host ?? 'a host'} failed`;
}

export function createRollout(fields: { id: string; repository: string; image: string; digest: string }, due: readonly DueMember[], now: Date): Rollout {
  const stages = [...new Set(due.map((d) => d.stage))].sort((a, b) => a - b);
  const rollout: Rollout = {
    ...fields,
    stages: stages.map((stage, index) => ({
      stage,
      state: index === 0 ? 'running' : 'waiting',
      members: due.filter((d) => d.stage === stage).map((d) => ({ host: d.host, container: d.container, state: 'pending' as const })),
    })),
    state: 'running',
    started_at: iso(now),
    updated_at: iso(now),
  };
  return rollout;
}

/** Whether the candidate is due on hosts of more than one stage: only then is it staged. */
export function needsStaging(due: readonly DueMember[]): boolean {
  return new Set(due.map((d) => d.stage)).size > 1;
}

function stageOf(rollout: Rollout, stage: number): RolloutStage | undefined {
  return rollout.stages.find((s) => s.stage === stage);
}

/**
 * A due container the rollout did not know (a container started since, a host added): it joins its stage
 * while that stage has not started soaking; a new stage is made for a stage number the rollout lacks.
 */
export function join(rollout: Rollout, due: DueMember): boolean {
  let stage = stageOf(rollout, due.stage);
  if (!stage) {
    // Admission (admit) decides when it runs, from the stages before it.
    stage = { stage: due.stage, state: 'waiting', members: [] };
    rollout.stages.push(stage);
    rollout.stages.sort((a, b) => a.stage - b.stage);
  }
  if (stage.state !== 'waiting' && stage.state !== 'running') return false;
  if (stage.members.some((m) => sameMember(m, due))) return false;
  stage.members.push({ host: due.host, container: due.container, state: 'pending' });
  return true;
}

/** The rollout's own state, from its stages. */
function settleState(rollout: Rollout): void {
  if (rollout.superseded_by !== undefined || rollout.stages.every((s) => s.state === 'done')) rollout.state = 'done';
  else if (rollout.stages.some((s) => s.state === 'halted')) rollout.state = 'halted';
  else if (rollout.stages.find((s) => s.state !== 'done')?.state === 'soaking') rollout.state = 'soaking';
  else rollout.state = 'running';
}

export function admit(rollout: Rollout, stageNumber: number, now: Date): Admission {
  if (rollout.state === 'done') return { kind: 'pass' };
  if (rollout.state === 'halted') {
    const halted = rollout.halted?.stage ?? 0;
    return stageNumber > halted ? { kind: 'halted', reason: haltReason(rollout) } : { kind: 'pass' };
  }
  const own = stageOf(rollout, stageNumber);
  if (own && own.state !== 'waiting') return { kind: 'pass' };
  for (const earlier of rollout.stages) {
    if (earlier.stage >= stageNumber) break;
    if (earlier.state === 'done') continue;
    if (earlier.state === 'running' || earlier.state === 'waiting') {
      const done = earlier.members.filter((m) => m.state !== 'pending').length;
      return { kind: 'wait', reason: `rollout waiting: stage ${earlier.stage} updating (${done} of ${earlier.members.length} replaced)` };
    }
    // Soaking.
    const until = new Date(earlier.soak_until ?? now.toISOString());
    if (until > now) return { kind: 'wait', reason: `rollout waiting: stage ${earlier.stage} soaking until ${until.toISOString()}`, until };
    return { kind: 'verify', stage: earlier };
  }
  // Every earlier stage is done: this stage runs now (a stage the rollout lacked runs as its own).
  if (own) own.state = 'running';
  return { kind: 'pass' };
}

/**
 * The stage passed its soak: done, and the stage after it runs — already settled when every container of it was
 * replaced before (a person's targeted update applies at once), so it soaks or ends at once.
 */
export function soaked(rollout: Rollout, stage: RolloutStage, now: Date, soakMs = 0): void {
  stage.state = 'done';
  delete stage.soak_until;
  const next = rollout.stages.find((s) => s.state === 'waiting');
  if (next) {
    next.state = 'running';
    settleStage(rollout, next, soakMs, now);
  }
  rollout.updated_at = iso(now);
  settleState(rollout);
}

/** A stage whose members all settled soaks; the last stage has nothing waiting on it and is done at once. */
function settleStage(rollout: Rollout, stage: RolloutStage, soakMs: number, now: Date): void {
  if (stage.state !== 'running' || stage.members.some((m) => m.state === 'pending')) return;
  const isLast = rollout.stages.every((s) => s.stage <= stage.stage || s.state === 'done');
  if (isLast) {
    stage.state = 'done';
    return;
  }
  // The soak runs from the last replacement: every one of them stays up for the whole of it.
  const replaced = stage.members.filter((m) => m.state === 'updated' && m.at).map((m) => Date.parse(m.at as string));
  stage.state = 'soaking';
  stage.soak_until = iso(new Date((replaced.length > 0 ? Math.max(...replaced) : now.getTime()) + soakMs));
}

export interface Outcome {
  readonly host: string;
  readonly container: string;
  readonly outcome: 'updated' | 'failed';
  readonly newId?: string;
  readonly error?: string;
}

/**
 * A replacement of the rollout's candidate finished. Returns true when it halted the rollout (a failure with a
 * stage still to come): the caller tells people (event, notification).
 */
export function record(rollout: Rollout, outcome: Outcome, soakMs: number, now: Date): { changed: boolean; halted: boolean } {
  if (rollout.state === 'done') return { changed: false, halted: false };
  const stage = rollout.stages.find((s) => s.members.some((m) => sameMember(m, outcome)));
  const member = stage?.members.find((m) => sameMember(m, outcome));
  if (!stage || !member || member.state !== 'pending') return { changed: false, halted: false };
  member.state = outcome.outcome;
  member.at = iso(now);
  if (outcome.newId) member.new_id = outcome.newId;
  if (outcome.error) member.error = outcome.error.slice(0, 300);
  rollout.updated_at = iso(now);
  let halted = false;
  if (outcome.outcome === 'failed' && rollout.state !== 'halted') {
    halt(rollout, stage, member, outcome.error ?? 'update failed', now);
    halted = true;
  } else if (stage.state === 'running') settleStage(rollout, stage, soakMs, now);
  settleState(rollout);
  return { changed: true, halted };
}

/** A replacement failed, or did not stay running and healthy through the soak. */
export function halt(rollout: Rollout, stage: RolloutStage, member: RolloutMember, error: string, now: Date): void {
  member.state = 'failed';
  member.error ??= error.slice(0, 300);
  member.at ??= iso(now);
  stage.state = 'halted';
  delete stage.soak_until;
  rollout.halted = { host: member.host, container: member.container, stage: stage.stage, error: error.slice(0, 300), at: iso(now) };
  rollout.updated_at = iso(now);
  settleState(rollout);
}

/**
 * A person lifts the halt: the halted stage counts its failed replacements as settled, soaks what it replaced,
 * and the later stages go on. False when the rollout is not halted.
 */
export function release(rollout: Rollout, by: string, soakMs: number, now: Date): boolean {
  if (rollout.state !== 'halted') return false;
  const stage = rollout.stages.find((s) => s.state === 'halted');
  rollout.released = { at: iso(now), by };
  delete rollout.halted;
  rollout.updated_at = iso(now);
  if (stage) {
    stage.state = 'running';
    // Its failed replacements are left as they are (the host runs its old image); its pending ones go on.
    settleStage(rollout, stage, soakMs, now);
  }
  settleState(rollout);
  return true;
}

/** A newer candidate for the same containers ends this rollout, halted or not. */
export function supersede(rollout: Rollout, by: string, now: Date): void {
  rollout.superseded_by = by;
  rollout.updated_at = iso(now);
  settleState(rollout);
}

/** The stage soaking now and until when, for the timer that starts the next stage. */
export function soakingUntil(rollout: Rollout): Date | undefined {
  if (rollout.state !== 'soaking') return undefined;
  const stage = rollout.stages.find((s) => s.state !== 'done');
  return stage?.state === 'soaking' && stage.soak_until ? new Date(stage.soak_until) : undefined;
}

/** The stage that runs next (the lowest waiting or running one), when the rollout goes on. */
export function nextStage(rollout: Rollout): RolloutStage | undefined {
  if (rollout.state === 'done' || rollout.state === 'halted') return undefined;
  return rollout.stages.find((s) => s.state === 'waiting' || s.state === 'running');
}
