// The data that flows through a run. Everything here is runtime-neutral: a Target may be a Docker
// container today and a Swarm service or a Podman container from a third-party plugin tomorrow.

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
  /** Set by the source of the `git` path; the check record shows these fields for it. */
  readonly git?: GitStaleness;
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
   * The tag policy the source applied (`digest`, `patch`, `minor`, `major`, `pin`; docs/tags.md), when it
   * read one. The fields below are the registry source's answer for tags (docs/plugins.md#the-staleness-protocol).
   */
  readonly tagPolicy?: string;
  /** Tag of the running reference, when it has one. */
  readonly currentTag?: string;
  /**
   * The newer tag chosen, only when it differs from `currentTag`; `latestDigest` is then this tag's digest.
   * A runtime pulls `repo@latestDigest` and runs `repo:latestTag` (never parsing versions itself).
   */
  readonly latestTag?: string;
  /** What kind of update a stale answer is: `digest` (same tag, new digest) or the version bump. */
  readonly updateKind?: 'digest' | 'patch' | 'minor' | 'major';
  /** A sentence for the user (e.g. `1.26.1 exists, but not for linux/arm64`); it never makes a target stale. */
  readonly note?: string;
  /**
   * The signature verdict on `latestDigest`, added by a `review` tap (the signatures plugin,
   * docs/signatures.md); absent when nothing verified signatures.
   */
  readonly signature?: SignatureCheck;
  /**
   * The next lower candidate, from a source that knows several (the registry under a tag policy, docs/tags.md):
   * the core's gate step calls it only when a gate refuses this one, at most MAX_GATE_CANDIDATES candidates
   * in all (docs/plugins.md#candidates-through-gates). Undefined (or resolving to undefined): no other candidate.
   */
  readonly nextCandidate?: () => Promise<Staleness | undefined>;
  /** Set by the gate step on the candidate that passed when it was not the first: how many were judged. */
  readonly candidatesTried?: number;
  /**
   * The version a stale answer leads to (docs/versions.md), added by a `review` tap: the newer tag under a
   * tag policy, else the candidate image's `org.opencontainers.image.version` as its registry serves it.
   */
  readonly latestVersion?: string;
  /**
   * What changed between the running version and `latestVersion` (docs/versions.md#release-notes), added by
   * the release-notes plugin's `review` tap when `--release-notes` is on.
   */
  readonly releaseNotes?: ReleaseNotes;
}

/** The releases between two versions of an image, from its source repository (docs/versions.md#release-notes). */
export interface ReleaseNotes {
  /** The resolved release-notes location (the check record's `changelog`). */
  readonly url: string;
  /** Newest first, at most 10, each `body` at most 4 KiB; empty when only the location is known. */
  readonly entries: readonly ReleaseNote[];
}

export interface ReleaseNote {
  readonly version: string;
  readonly title: string;
  readonly url: string;
  /** RFC 3339, when the code host says. */
  readonly publishedAt?: string;
  /** Markdown as text, never rendered by Tidewatch outside the dashboard's safe renderer. */
  readonly body: string;
}

/** What signature verification found for a candidate digest (docs/signatures.md#verdicts). */
export type SignatureVerdict = 'verified' | 'unsigned' | 'invalid' | 'error';

export interface SignatureCheck {
  readonly verdict: SignatureVerdict;
  /** The digest verified: the staleness' `latestDigest`. */
  readonly digest: string;
  /** A sentence: who signed (verified) or why not. */
  readonly reason: string;
  /** The policy that asked: `warn` reports only, `enforce` skips anything but verified. */
  readonly policy: 'warn' | 'enforce';
}

export interface GitStaleness {
  readonly repo: string;
  readonly ref: string;
  /** Head commit of the ref on the remote. */
  readonly commit?: string;
  /** Commit the running image was built from. */
  readonly currentCommit?: string;
  readonly changelog?: string;
}

/** A gate's decision to defer an update. */
export interface Skip {
  readonly reason: string;
  /** Name of the plugin that deferred. */
  readonly by?: string;
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
  /** For `failed`: whether the old target was restored and is running as before. */
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

export interface RunRequest {
  readonly filters?: Partial<RunFilters>;
  /** Cancels the run between targets (never in the middle of replacing one). */
  readonly signal?: AbortSignal;
  /** Run id to use (the HTTP API hands out the id before the run starts). */
  readonly runId?: string;
  /** Who asked: `api`, `schedule`, `startup`, `mqtt`, `webhook:<receiver>`…; `embed` when absent (`RunContext.trigger`). */
  readonly trigger?: string;
}

/** Shared by every tap during one run. */
export interface RunContext {
  readonly runId: string;
  readonly kind: ContextKind;
  readonly targeted: boolean;
  /**
   * Who started the run (`RunRequest.trigger`): `schedule`, `api`, `startup`, `mqtt`, `webhook:<receiver>`…;
   * `embed` when the caller named none. Events, history and the audit trail carry it.
   */
  readonly trigger: string;
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
