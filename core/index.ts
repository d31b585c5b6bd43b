// Tidewatch's public surface: what embedders and plugin authors import (docs/plugins.md). The core drives
// runs through hooks and knows no runtime, registry or transport; the little it knows of images, labels and
// the watch split is said in the header of the file that holds it. test/core/public-surface.test.ts lists
// every export, so the surface only grows on purpose.

// The engine, for embedders
export { createTidewatch } from './tidewatch.js';
export type { AppliedOptions, RunMode, Tidewatch, TidewatchCore, TidewatchOptions } from './tidewatch.js';
export type {
  Actor,
  ApplyOutcome,
  ApplyResult,
  CheckReport,
  CheckResult,
  ContextKind,
  Logger,
  RunContext,
  RunFilters,
  RunKind,
  RunRequest,
  Skip,
  Staleness,
  Target,
  UpdatePlan,
  UpdateReport,
  UpdateSummary,
} from './types.js';
export type { HistoryEntry } from './history.js';
export type { AppliedPlan, Plan } from './plan.js';
export { defineFinding, findingLines, readFinding, withFinding } from './findings.js';
export type { Finding, FindingKey, FindingSpec, Findings } from './findings.js';
export { DOCUMENTED_FINDING_KEYS, FINDINGS } from './known-findings.js';
export type { GitStaleness, ReleaseNote, ReleaseNotes, SignatureCheck, SignatureVerdict, TagFacts } from './known-findings.js';
export type { Hooks } from './hooks.js';

// Declaring plugins and their options
export { definePlugin, usePlugin } from './plugin.js';
export type { PluginDefinition, PluginUse, TidewatchPlugin } from './plugin.js';
export { defaultOf, envName, envNames, option, optionLabel } from './option.js';
export type { JsonSchema, OptionCommon, OptionKind, OptionSpec, OptionSpecs, OptionValues } from './option.js';
export { isGoBool, splitCommaOrSpace } from './option-parsers.js';
export type { ParseContext, Parser } from './option-parsers.js';
export { SELECTION_OPTIONS, SHARED_OPTIONS } from './shared-options.js';

// Services between plugins, the watch split and stages
export { DOCKER_ENGINES, LOCAL_IMAGES, PULL_CREDENTIALS, REMOTE_IMAGES, defineService, registryAuthHeader, ATTESTATION_VERIFIER, REGISTRY_CLIENT, REGISTRY_MIRRORS, DATA_DIR_HANDOVER, ROLLBACKS, STATE_STORE } from './services.js';
export type { AttestationRead, AttestationVerifier, VerifiedAttestation, DockerEngines, EngineApi, EngineRequestOptions, LocalImage, LocalImages, PullCredentials, RegistryAuth, RegistryClientService, RegistryDocument, RegistryMirrors, RegistryReadOptions, RemoteImages, ServiceKey, Services, DataDirHandover, Rollbacks } from './services.js';
export { containerKey, lastCheckOf, targetKey } from './state-store.js';

export { writeFileAtomic, readJsonFile, syncDirectory } from './atomic-file.js';
export { bareDigest, repoDigest } from './repo-digest.js';
export type {
  AuditAction,
  AuditEntry,
  AuditImage,
  AuditQuery,
  AuditRecord,
  ContainerKey,
  FailedCandidate,
  HistoryQuery,
  Hold,
  KeyedRecord,
  LastCheck,
  Page,
  PageQuery,
  PreviousImage,
  RetainedImage,
  RollbackOutcome,
  StateStore,
} from './state.js';
export { UPDATE_POLICIES } from './policies.js';
export type {
  ApprovalDecider,
  ApprovalDecision,
  ApprovalEntry,
  ApprovalState,
  DecisionOptions,
  DecisionOutcome,
  PolicyStatus,
  UpdatePolicies,
} from './policies.js';
export { HTTP_ROUTES, bearerToken, httpRoutes } from './http-routes.js';
export { PEOPLE, ROLES, roleAllows } from './people.js';
export type { Authentication, People, Principal, Role } from './people.js';
export type { HttpRouteDefinition, HttpRouteRefusal, HttpRouteRequest, HttpRouteResponse, HttpRoutes } from './http-routes.js';
export { GIT_PATH, REGISTRY_PATH, STAGES, isGitWatched } from './watch-split.js';
export type { WatchClaim } from './watch-split.js';

// Events and errors
export { actorField, isPublicEvent } from './events.js';
export { optionsView } from './options-view.js';
export type { ActorField, EventPayloads, EventType, TidewatchEvent } from './events.js';
export { ConfigError, TidewatchError, createError, errorMessage, errors, invalidOptions, isTidewatchError } from './errors.js';

// Shared product rules plugins read the same way
export { mapBounded } from './bounded.js';
export { MAX_GATE_CANDIDATES } from './candidates.js';
export { compareDigits, compareVersions, parseTag, sameShape, type TagVersion } from './tag-version.js';
export { formatImageReference, isArtifactTag, parseImageReference, repositoryName, tryParseImageReference } from './image-reference.js';
export type { ImageReference } from './image-reference.js';
export { exactNamePattern, isTargeted, nameMatcher, splitFilterValues } from './request-filter.js';
export { assertPatternBounds, isPlainName, patternBoundsViolation, patternCost, patternErrors, PATTERN_LIMITS } from './pattern-bounds.js';
export { isMonitorOnly, selectionFilter } from './selection-rules.js';
export type { MonitorOnlyOptions, SelectionRules } from './selection-rules.js';
export {
  LABEL_PREFIX,
  SELF_LABELS,
  WATCHTOWER_LABEL_PREFIX,
  isSelfLabelled,
  labelOrGlobal,
  parseBoolLabel,
  readLabel,
  targetLabel,
} from './labels.js';
export { OCI_REVISION, sameCommit } from './revision.js';
export { formatGoDuration, parseCooldownDuration, parseGoDuration } from './go-duration.js';
