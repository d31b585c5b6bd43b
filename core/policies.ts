// An approval entry (docs/policies.md#approvals) as the core's `approval` event carries it: the one part of
// the policies plugin's record the core names. The service through which the HTTP API, the dashboard and Home
// Assistant read and decide approvals is the plugin's contract (plugins/policies/contracts.ts).
import type { Actor } from './types.js';

/** Where a pending approval stands (docs/policies.md#approvals). */
export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'deferred' | 'superseded' | 'applied';
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
  /** Who decided (docs/people.md#a-name-on-every-decision): a token's name, a person, Home Assistant. */
  readonly actor?: Actor;
}
