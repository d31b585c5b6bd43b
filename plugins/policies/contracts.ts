// The policies plugin's contract with other plugins (docs/plugins.md#contracts): update windows and approvals
// (docs/policies.md), read and decided by the HTTP API, the dashboard and Home Assistant's Install button through
// UPDATE_POLICIES, never by importing the plugin. Its key and types live here, with the plugin that provides
// them, and reach other plugins and third parties through the contracts entry (contracts/index.ts).
import { defineService, type Actor, type ApprovalEntry, type ServiceKey, type Target } from '../../core/index.js';
import type { ContainerKey } from '../../contracts/index.js';

/** Where a pending approval stands (docs/policies.md#approvals). */
export type ApprovalState = ApprovalEntry['state'];
/** Who decided: the API, the dashboard (through the API), or Home Assistant's Install button. */
export type ApprovalDecider = NonNullable<ApprovalEntry['decided_by']>;
export type ApprovalDecision = 'approve' | 'reject' | 'defer';

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
  /** Who decided; the update an approval applies carries it as its actor. */
  readonly actor?: Actor;
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
