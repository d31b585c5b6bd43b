// Update windows and approvals (docs/policies.md): when a run may apply a stale target, and whether a person
// must agree first. The policies plugin provides UPDATE_POLICIES; the HTTP API, the dashboard and Home
// Assistant's Install button read and decide through it, never by importing the plugin.
import type { ContainerKey } from './state.js';
import { defineService, type ServiceKey } from './services.js';
import type { Target } from './types.js';

/** Where a pending approval stands (docs/policies.md#approvals). */
export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'deferred' | 'superseded' | 'applied';
export type ApprovalDecision = 'approve' | 'reject' | 'defer';
/** Who decided: the API, the dashboard (through the API), or Home Assistant's Install button. */
export type ApprovalDecider = 'api' | 'dashboard' | 'mqtt';

/** One candidate waiting for (or past) a person's decision, as `GET /v1/approvals` shows it. */
export interface ApprovalEntry {
  readonly id: string;
  readonly container: string;
  readonly host?: string;
  /**
   * The runtime id of the container asked about (docs/policies.md#whose-approval-it-is): the entry follows it
   * through Tidewatch's own replacements and never passes to another container that takes the name. Absent
   * only in entries an earlier version kept by name, until the next run matches them.
   */
  readonly container_id?: string;
  /** The reference the container runs. */
  readonly image: string;
  readonly current_tag?: string;
  /** The newer tag under a tag policy (docs/tags.md); absent for a digest update. */
  readonly latest_tag?: string;
  /** Bare `sha256:…` of exactly the candidate asked about: approving applies this digest and no other. */
  readonly latest_digest: string;
  readonly update_kind?: 'digest' | 'patch' | 'minor' | 'major';
  /** RFC 3339. */
  readonly requested_at: string;
  readonly state: ApprovalState;
  /** RFC 3339, while deferred: when it is asked again. */
  readonly deferred_until?: string;
  readonly decided_at?: string;
  readonly decided_by?: ApprovalDecider;
  /** Why the entry is `superseded` (a newer candidate, its container replaced, unwatched or removed). */
  readonly reason?: string;
}

/** What the windows and approvals say of one container now (`next_window`, `approval` in the container lists). */
export interface PolicyStatus {
  /** While every window of a stale container is closed: when the next one opens. */
  readonly nextWindow?: Date;
  readonly approval?: 'pending' | 'rejected' | 'deferred';
}

export type DecisionOutcome =
  /** `runId`: the targeted update an approval started (absent while its window is closed: the window's first run applies it). */
  | { readonly status: 'decided'; readonly entry: ApprovalEntry; readonly runId?: string }
  | { readonly status: 'unknown' }
  | { readonly status: 'conflict'; readonly entry: ApprovalEntry; readonly reason: string };

export interface DecisionOptions {
  readonly by: ApprovalDecider;
  /** `defer`: for how long (default 24 h). */
  readonly deferMs?: number;
  /** `approve`: apply now even outside the container's window. */
  readonly now?: boolean;
  readonly signal?: AbortSignal;
  /** The run id of the update an approval starts. */
  readonly runId?: string;
}

export interface UpdatePolicies {
  /** `updateAvailable`: what the container's last check found; windows matter only to a stale container. */
  statusOf(target: Target, updateAvailable: boolean, now?: Date): PolicyStatus;
  /** Every kept entry, oldest first. */
  approvals(): readonly ApprovalEntry[];
  /** The container's pending entry, if any; with `id`, only an entry asked about that very container. */
  pendingFor(key: ContainerKey & { readonly id?: string }): ApprovalEntry | undefined;
  /** Approve (applies exactly that candidate through a targeted update), reject, or defer an entry. */
  decide(id: string, decision: ApprovalDecision, options: DecisionOptions): Promise<DecisionOutcome>;
}

export const UPDATE_POLICIES: ServiceKey<UpdatePolicies> = defineService<UpdatePolicies>('update-policies');
