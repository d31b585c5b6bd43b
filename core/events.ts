// The typed event bus. Events are emitted through the core's `event` hook (a SyncHook), so every
// subscriber (SSE, metrics, logging, notifiers) is just a tap. The wire shapes are docs/interface.md §6.
import type { ApprovalEntry } from './policies.js';
import type { Actor, CheckReport, RunContext, Target, UpdateReport, UpdateSummary } from './types.js';
import type { Findings } from './findings.js';
import type { SignatureVerdict } from './known-findings.js';


/** A target's `kind` and `host` on the update events, each only when the target has it (a Swarm service). */
export interface TargetPlacement {
  kind?: string;
  host?: string;
}

/** The placement fields of a target, for an event's data. */
export function targetPlacement(target: Target): TargetPlacement {
  return { ...(target.kind ? { kind: target.kind } : {}), ...(target.host ? { host: target.host } : {}) };
}

/**
 * `rollback: true` on the update events of a rollback on demand (docs/state.md#rollback-on-demand): the
 * container goes back to its previous image, it is not updated to a newer one.
 */
export interface RollbackField {
  rollback?: true;
}

/** The verdict on the image an update applies, when signatures are verified (docs/signatures.md). */
export interface SignatureField {
  signature?: SignatureVerdict;
}

/** Who started the run (docs/people.md#a-name-on-every-decision), on every event of a run that knows it. */
export interface ActorField {
  actor?: Actor;
}

/** The run's actor as an event field, only when the run has one. */
export function actorField(ctx: Pick<RunContext, 'actor'>): ActorField {
  return ctx.actor ? { actor: ctx.actor } : {};
}

export interface EventPayloads {
  /** `trigger`: who started the run (`RunContext.trigger`: `schedule`, `api`, `webhook:<receiver>`…). */
  scan_started: { run_id: string; kind: 'update' | 'check'; targeted: boolean; trigger?: string } & ActorField;
  /** Update runs carry the whole 2.1 summary; check runs `scanned`, `updated` (0) and `failed`. */
  scan_completed: { run_id: string } & (UpdateSummary | Pick<UpdateSummary, 'scanned' | 'updated' | 'failed'>);
  scan_failed: { run_id: string; error: string };
  image_cleanup: { run_id: string; images: { image_id: string; image_name: string }[] };
  update_started: { run_id: string; container: string; image: string; image_id: string; trigger?: string } & ActorField & TargetPlacement &
    SignatureField &
    RollbackField;
  update_completed: {
    run_id: string;
    container: string;
    /** The reference the target runs now (a new tag after a tag update, docs/tags.md). */
    image: string;
    /** The reference before the update (equal to `image` for a digest update). */
    old_image: string;
    old_image_id: string;
    new_image_id: string;
    trigger?: string;
  } & ActorField &
    TargetPlacement &
    SignatureField &
    RollbackField;
  update_failed: {
    run_id: string;
    container: string;
    image: string;
    error: string;
    rolled_back: boolean;
    trigger?: string;
  } & ActorField &
    TargetPlacement &
    RollbackField;
  /**
   * A stale target a gate deferred (a hold, a cooldown, an unverified signature…), with the gate's reason:
   * said once per run and target, so a user sees why it was not updated (docs/state.md#holds).
   */
  update_skipped: { run_id: string; container: string; image: string; reason: string; by?: string; code?: string; trigger?: string } & ActorField & TargetPlacement;
  /**
   * Internal (not on the SSE stream): the whole report of a finished run, emitted just before its
   * `scan_completed`, for subscribers that need every target's result (notifiers, Home Assistant).
   */
  run_report: { run_id: string; trigger?: string } & ActorField & ({ kind: 'check'; report: CheckReport } | { kind: 'update'; report: UpdateReport });
  /** Internal: one per notification delivery attempt's final result, for metrics (docs/notifications.md). */
  notification: { service: string; result: 'sent' | 'failed' };
  /**
   * Internal (not on the SSE stream): a full update run refused because another run holds the update
   * lock (a scheduled tick, or a 429 to the API), for Watchtower's `watchtower_scans_skipped` (docs/http-api.md).
   */
  scan_skipped: { kind: 'update'; trigger: string };
  /** Internal: one per webhook request a known receiver answered, for metrics (docs/webhooks.md#metrics). */
  webhook: { receiver: string; result: 'accepted' | 'duplicate' | 'ignored' | 'rejected' };
  /**
   * Internal (not on the SSE stream): one per signature verification made (a cached verdict is not made
   * again), for metrics (docs/signatures.md).
   */
  signature_verification: { image: string; digest: string; result: SignatureVerdict; reason: string };
  /**
   * Internal (not on the SSE stream): an approval entry was created or changed state (docs/policies.md#approvals),
   * for notifications (a new pending approval, announced once), Home Assistant and metrics; `pending` is the
   * number of entries pending after the change.
   */
  approval: { entry: ApprovalEntry; pending: number };
  /**
   * Internal (not on the SSE stream): the candidates of one stale container that gates refused in an update run,
   * whether a lower one then passed or none did, for metrics (docs/interface.md#metrics).
   */
  candidates_refused: { run_id: string; container: string; refusals: readonly { by?: string; code?: string }[] };
  /**
   * A staged rollout halted (docs/rollouts.md#halts): a replacement of its candidate failed on `host` (or did not
   * stay up through the soak), so every later stage is skipped until a person releases it or a newer candidate
   * comes. On the SSE stream; notifications announce it.
   */
  rollout_halted: { rollout_id: string; image: string; digest: string; host: string; container: string; stage: number; error: string; reason: string };
  /** Internal (not on the SSE stream): one per registry HTTP request, for metrics. */
  registry_request: { registry: string; method: string; code: string };
}

export type EventType = keyof EventPayloads;

/**
 * `findings`: on the update events (`update_started`, `update_completed`, `update_skipped`), what plugins found
 * about the candidate (docs/plugins.md#findings), for subscribers in the process; the SSE stream sends `type`,
 * `timestamp` and `data` only, so the wire shapes stay as documented.
 */
export type TidewatchEvent = {
  [K in EventType]: { readonly type: K; readonly timestamp: string; readonly data: EventPayloads[K]; readonly findings?: Findings };
}[EventType];

export function makeEvent<K extends EventType>(type: K, data: EventPayloads[K], findings?: Findings): TidewatchEvent {
  const event = { type, timestamp: new Date().toISOString(), data };
  return (findings && Object.keys(findings).length > 0 ? { ...event, findings } : event) as TidewatchEvent;
}
