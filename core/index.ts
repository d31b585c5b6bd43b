// Tidewatch's public surface: what embedders and plugin authors import. Nothing here knows Docker,
// registries, Git or HTTP; those are plugins.
export { createTidewatch } from './tidewatch.js';
export type { Tidewatch, TidewatchCore, TidewatchOptions } from './tidewatch.js';
export type { Hooks } from './hooks.js';
export { usePlugin, validatePluginOptions } from './plugin.js';
export type { JsonSchema, PluginUse, TidewatchPlugin } from './plugin.js';
export { UpdateLock } from './lock.js';
export type { Release } from './lock.js';
export { RunHistory } from './history.js';
export type { HistoryEntry } from './history.js';
export { Health } from './health.js';
export type { ReadinessCheck } from './health.js';
export { PUBLIC_EVENT_TYPES, isPublicEvent, makeEvent } from './events.js';
export type { EventPayloads, EventType, TidewatchEvent } from './events.js';
export { TidewatchError, createError, errorMessage, errors, isTidewatchError } from './errors.js';
export { mapBounded } from './bounded.js';
export {
  DOCKER_HUB,
  InvalidImageReferenceError,
  familiarName,
  formatImageReference,
  parseImageReference,
  repositoryName,
  tryParseImageReference,
} from './image-reference.js';
export type { ImageReference } from './image-reference.js';
export { applyRequestFilters, imageMatcher, isTargeted, nameMatcher, splitFilterValues } from './request-filter.js';
export { orderByDependencies, transitiveDependents } from './dependency-order.js';
export {
  LABEL_PREFIX,
  SELF_LABELS,
  WATCHTOWER_LABEL_PREFIX,
  isGitWatched,
  isSelfLabelled,
  labelOrGlobal,
  parseBoolLabel,
  readLabel,
  targetLabel,
} from './labels.js';
export { silentLogger } from './logger.js';
export { OCI_REVISION, sameCommit } from './revision.js';
export {
  formatGoDuration,
  parseCooldownDuration,
  parseEnvDuration,
  parseGoDuration,
} from './go-duration.js';
export { LOCAL_IMAGES, REMOTE_IMAGES, defineService, getService, provideService } from './services.js';
export type { LocalImages, RemoteImages, ServiceKey } from './services.js';
export type {
  ApplyOutcome,
  ApplyResult,
  CheckReport,
  CheckResult,
  ContextKind,
  GitStaleness,
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
