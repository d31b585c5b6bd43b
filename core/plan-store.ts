// Decided plans, kept in memory for `--plan-ttl` (docs/plans.md). A plan is applied once: its first apply
// takes it, a second answers TW_ERR_PLAN_APPLIED until it expires; an expired or unknown id answers
// TW_ERR_PLAN_NOT_FOUND. Bounded: past MAX_PLANS the oldest plan is forgotten, so a client deciding plans in
// a loop cannot grow the process (each plan holds its targets' labels).
import { errors } from './errors.js';
import type { DecidedPlan } from './plan.js';

export const MAX_PLANS = 100;

interface Kept {
  readonly decided: DecidedPlan;
  applied: boolean;
}

export class PlanStore {
  readonly #plans = new Map<string, Kept>();
  readonly #now: () => number;

  constructor(
    /** How long a plan may be applied after it was decided, in milliseconds. */
    readonly ttlMs: number,
    now: () => number = Date.now,
  ) {
    this.#now = now;
  }

  /** When a plan decided now expires. */
  expiry(): Date {
    return new Date(this.#now() + this.ttlMs);
  }

  add(decided: DecidedPlan): void {
    this.#sweep();
    // Map keeps insertion order: the first key is the oldest plan.
    while (this.#plans.size >= MAX_PLANS) this.#plans.delete(this.#plans.keys().next().value as string);
    this.#plans.set(decided.plan.planId, { decided, applied: false });
  }

  /** The plan to apply, marked applied; throws when it is unknown, expired or applied already. */
  take(planId: string): DecidedPlan {
    this.#sweep();
    const kept = this.#plans.get(planId);
    if (!kept) throw errors.planNotFound();
    if (kept.applied) throw errors.planApplied();
    kept.applied = true;
    return kept.decided;
  }

  /** Gives back a plan whose apply never began (it was cancelled while it waited for the update lock). */
  giveBack(planId: string): void {
    const kept = this.#plans.get(planId);
    if (kept) kept.applied = false;
  }

  get size(): number {
    this.#sweep();
    return this.#plans.size;
  }

  #sweep(): void {
    const now = this.#now();
    for (const [id, kept] of this.#plans) {
      if (kept.decided.plan.expiresAt.getTime() <= now) this.#plans.delete(id);
    }
  }
}
