// The data that flows through a run. Everything here is runtime-neutral: a Target may be a Docker
// container today and a Swarm service or a Podman container from a third-party plugin tomorrow.
import type { Findings } from './findings.js';

/** Minimal structured logger; pino's Logger satisfies it, so does a console shim in tests. */
export interface Logger {
  trace(obj: object, msg?: string): void;
  trace(msg: string): void;
  debug(obj: object, msg?: string): void;
  debug(msg: string): void;
  info(obj: object, msg?: string): void;
  info(msg: string): void;
  warn(obj: object, msg?: string): void;
  warn(msg: string): void;
  error(obj: object, msg?: string): void;
  error(msg: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

/** Something that runs an image and can be replaced when a newer one exists. */
export interface Target {
  /** Name of the runtime plugin that discovered the target and owns `apply` for it. */
  readonly runtime: string;
  /** Runtime id (the container id for Docker). */
  readonly id: string;
  /** Name without Docker's leading slash. */
  readonly name: string;
  /** Image reference the target was started from, e.g. `127.0.0.1:5000/demo/app:latest`. */
  readonly image: string;
  /** Local image id (`sha256:…`) the target runs. */
  readonly imageId: string;
  /** `repo@sha256:…` entries the engine recorded for the local image; empty for local builds. */
  readonly repoDigests: readonly string[];
  /** The target's own labels (container labels). */
  readonly labels: Readonly<Record<string, string>>;
  /** Labels baked into the image (OCI annotations live here). */
  readonly imageLabels: Readonly<Record<string, string>>;
  /** `running`, `exited`, `created`, `restarting`, … */
  readonly state: string;
  /** Names of targets this one depends on (started before it, stopped after it). */
  readonly dependsOn: readonly string[];
  /** True for Tidewatch's own container. */
  readonly isSelf: boolean;
  /** What the target is: `container` when absent, `service` for a Swarm service; a runtime may name its own. */
  readonly kind?: string;
  /** The engine the target runs on, as configured (`unix:///var/run/docker.sock`, `tcp://…`), when known. */
  readonly host?: string;
  /**
   * The host's rollout stage (docs/rollouts.md): `?stage=N` on a `--host` entry, `--agent-stage` for an agent;
   * absent means stage 1. A candidate due on hosts of several stages is applied stage by stage.
   */
  readonly stage?: number;
}

/**
 * What a staleness source found out about one target, and what it makes the runtime do
 * (docs/plugins.md#the-staleness-protocol).
 */
export interface Staleness {
  /** The target's watch path (`core.watchPath(target)`): `registry`, `git`, or a plugin's own path. */
  readonly source: string;
  /** True: the run passes the target to the gates, then to its runtime's `apply`. */
  readonly stale: boolean;
  /** Set when the check itself failed: the target is then reported with this error, never as up to date. */
  readonly error?: string;
  /** Registry digest of the running image when known. */
  readonly currentDigest?: string;
  /** Newest registry digest when known. */
  readonly latestDigest?: string;
  /** Local id of the newer image when known (no-pull compares local images). */
  readonly latestImageId?: string;
  /** True when the target was deliberately not checked (e.g. a Git-watched no-pull container). */
  readonly unchecked?: boolean;
  /**
   * The revision (the image's `org.opencontainers.image.revision` label) the pulled image must carry for
   * the update to be applied; otherwise the runtime skips the target with the reason
   * `image for <revision> not published yet` (docs/interface.md#9-git-watched-containers).
   */
  readonly requiredRevision?: string;
  /**
   * Stale, but nothing a runtime can apply (say, a source that knows of a release no registry serves
   * yet): the target is reported stale and the run counts it skipped with this reason, asking no runtime.
   * With `error` (a host offline, docs/fleet.md): the target is reported with the error and update runs
   * count it skipped with this reason instead of failed.
   */
  readonly notApplicable?: string;
  /**
   * A local image to run as it is, never pulled (rollback on demand, docs/state.md#rollback-on-demand): the
   * runtime creates the new container on this image id and keeps the target's image reference as its name.
   */
  readonly targetImageId?: string;
  /**
   * With `targetImageId`: the image reference (tag, or digest) the container ran that image under, which
   * the new container is created on so that every view names it alike (docs/state.md#rollback-on-demand).
   */
  readonly targetImage?: string;
  /**
   * The newer tag chosen, only when it differs from the running one (the tags finding's `currentTag`, core FINDINGS); `latestDigest` is then this tag's digest.
   * A runtime pulls `repo@latestDigest` and runs `repo:latestTag` (never parsing versions itself).
   */
  readonly latestTag?: string;
  /** A sentence for the user (e.g. `1.26.1 exists, but not for linux/arm64`); it never makes a target stale. */
  readonly note?: string;
  /**
   * The next lower candidate, from a source that knows several (the registry under a tag policy, docs/tags.md):
   * the core's gate step calls it only when a gate refuses this one, at most MAX_GATE_CANDIDATES candidates
   * in all (docs/plugins.md#candidates-through-gates). Undefined (or resolving to undefined): no other candidate.
   */
  readonly nextCandidate?: () => Promise<Staleness | undefined>;
  /** Set by the gate step on the candidate that passed when it was not the first: how many were judged. */
  readonly candidatesTried?: number;
  /**
   * What plugins found out about this answer's candidate, by key (docs/plugins.md#findings): the signature
   * verdict, the Git source's commits, release notes, the tag policy's facts, a third party's own. Written with
   * `withFinding`, read with `readFinding`; every display shows a finding by its key and one line.
   */
  readonly findings?: Findings;
}

/** A gate's decision to defer an update. */
export interface Skip {
  readonly reason: string;
  /** Name of the plugin that deferred. */
  readonly by?: string;
  /**
   * Why, as one short word of the gate's own vocabulary (`vulnerabilities`, `missing`…): the metrics' `reason`
   * label (docs/interface.md#metrics), where the sentence in `reason` would make a series per candidate.
   */
  readonly code?: string;
  /** When the target becomes eligible, if known. */
  readonly until?: Date;
  /**
   * True for monitor-only: the target is stale and reported, but counts as scanned, not skipped
   * (Watchtower's accounting).
   */
  readonly reportOnly?: boolean;
  /**
   * True when the refusal holds for every candidate of the target alike (a closed update window): the gate step
   * asks for no lower candidate (docs/plugins.md#candidates-through-gates).
   */
  readonly everyCandidate?: boolean;
}

export interface UpdatePlan {
  readonly target: Target;
  readonly staleness: Staleness;
  /**
   * True when the target is not stale itself but must be restarted because a dependency was
   * replaced; the runtime recreates it on its current image.
   */
  readonly restartOnly: boolean;
  /**
   * Targets of this run that depend on this one, directly or not, in stop order (dependents
   * first). A runtime stops them before replacing this target; each is recreated by its own plan,
   * which comes later in the run.
   */
  readonly dependents: readonly Target[];
}

export type ApplyOutcome = 'updated' | 'restarted' | 'failed' | 'skipped';

export interface ApplyResult {
  readonly target: Target;
  readonly outcome: ApplyOutcome;
  readonly oldImageId?: string;
  readonly newImageId?: string;
  readonly newContainerId?: string;
  readonly error?: string;
  /** For `failed`: whether a replacement had begun and the old target was restored (false when it failed before anything was replaced). */
  readonly rolledBack?: boolean;
  /**
   * For `failed`: the new image itself did not start or stay up (rather than the engine, a hook or a pull
   * failing). No run tries that candidate again until a newer one appears (docs/state.md#failed-candidates).
   */
  readonly candidateFailed?: boolean;
  /** For `skipped`: why. */
  readonly reason?: string;
  /** The reference the target runs now, when the update changed it (a new tag, a new pinned digest). */
  readonly newImage?: string;
  /**
   * For `updated`: a sentence the user should read about the result, e.g. that the Compose file still
   * names the old image (docs/compose.md#tag-updates-and-compose).
   */
  readonly note?: string;
  /** The volume snapshot taken before the replacement, or restored with its rollback (docs/snapshots.md). */
  readonly snapshot?: SnapshotRef;
}

/** A snapshot as an update's result and its audit entry name it (docs/snapshots.md). */
export interface SnapshotRef {
  readonly id: string;
  readonly volumes: readonly string[];
  /** True when the volumes were put back from it (a rollback). */
  readonly restored?: boolean;
}

export type RunKind = 'check' | 'update';
/** `list` is discovery and selection only (GET /v1/containers). */
export type ContextKind = RunKind | 'list';

/** Request filters of `/v1/check` and `/v1/update` (docs/interface.md#5-query-parameters). */
export interface RunFilters {
  /** Image names, with or without tag. */
  readonly images: readonly string[];
  /** Container names or RE2 patterns, anchored at both ends. */
  readonly containers: readonly string[];
  /** Engines (`Target.host`), exactly as configured (docs/hosts.md); absent means every engine. */
  readonly hosts?: readonly string[];
}

/**
 * Who made a decision (docs/people.md#a-name-on-every-decision): a personal or the main API token by its
 * name, a person signed in with OpenID Connect by `preferred_username` or `email`, Home Assistant, a webhook
 * receiver by its name, the schedule, or start-up. Events, audit entries and approvals carry it.
 */
export interface Actor {
  readonly kind: 'token' | 'oidc' | 'mqtt' | 'webhook' | 'schedule' | 'startup';
  readonly name: string;
}

export interface RunRequest {
  readonly filters?: Partial<RunFilters>;
  /** Cancels the run between targets (never in the middle of replacing one). */
  readonly signal?: AbortSignal;
  /** Run id to use (the HTTP API hands out the id before the run starts). */
  readonly runId?: string;
  /** Who asked: `api`, `schedule`, `startup`, `mqtt`, `webhook:<receiver>`…; `embed` when absent (`RunContext.trigger`). */
  readonly trigger?: string;
  /** The person or credential that asked; derived from `trigger` when absent (`RunContext.actor`). */
  readonly actor?: Actor;
}

/** Shared by every tap during one run. */
export interface RunContext {
  readonly runId: string;
  readonly kind: ContextKind;
  /**
   * True while a plan is decided (docs/plans.md): an `update` run in every judgement, but nothing may change
   * yet — no pull started ahead, no command run in a container. Absent otherwise.
   */
  readonly preview?: boolean;
  readonly targeted: boolean;
  /**
   * Who started the run (`RunRequest.trigger`): `schedule`, `api`, `startup`, `mqtt`, `webhook:<receiver>`…;
   * `embed` when the caller named none. Events, history and the audit trail carry it.
   */
  readonly trigger: string;
  /** Who started the run, when known (docs/people.md): events and audit entries carry it. */
  readonly actor?: Actor;
  readonly filters: RunFilters;
  readonly signal: AbortSignal;
  /**
   * Aborted only when the process is stopping (`tw.stop()`), not by a request's timeout: a runtime then
   * rolls back a replacement it has not proven yet instead of waiting out its grace period.
   */
  readonly stopping: AbortSignal;
  readonly logger: Logger;
  readonly startedAt: Date;
  /**
   * Per-run memo: the first caller computes, every concurrent or later caller with the same key
   * shares the promise. Sources use it to spend one request per distinct image, not per target.
   */
  memo<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /**
   * A runtime's discover tap may hand over targets here as soon as each is complete (say, once its
   * image is inspected), before its tap returns: the run selects them and starts their staleness checks
   * while discovery goes on (docs/performance.md#the-check-pipeline). The tap must still return every
   * target, announced or not; only what the run's selection of that full list keeps is reported.
   */
  announce(targets: readonly Target[]): void;
}

export interface CheckResult {
  readonly target: Target;
  readonly staleness: Staleness;
  readonly checkedAt: Date;
}

export interface CheckReport {
  readonly runId: string;
  readonly results: readonly CheckResult[];
  readonly startedAt: Date;
  readonly finishedAt: Date;
}

export interface UpdateSummary {
  scanned: number;
  updated: number;
  failed: number;
  restarted: number;
  skipped: number;
}

export interface UpdateReport {
  readonly runId: string;
  readonly targeted: boolean;
  readonly summary: UpdateSummary;
  /** Every selected target's staleness answer, in discovery order (a report of the whole run). */
  readonly checks: readonly CheckResult[];
  readonly results: readonly ApplyResult[];
  /** Stale targets that were only reported (monitor-only) or deferred by a gate. */
  readonly skipped: readonly { target: Target; reason: string; candidatesTried?: number }[];
  readonly startedAt: Date;
  readonly finishedAt: Date;
}
