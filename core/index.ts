// Tidewatch's public surface: what embedders and plugin authors import (docs/plugins.md). The core drives
// runs through hooks and knows no runtime, registry or transport; the little it knows of images, labels and
// the watch split is said in the header of the file that holds it. It keeps the run, hooks, plan, events,
// options, errors and the rules every plugin reads alike; a contract one plugin offers lives in that plugin and
// reaches others through contracts/index.ts (docs/plugins.md#contracts). test/core/public-surface.test.ts lists
// every export (docs/api/core.api.md) and holds it to at most 90 names, so the surface only grows on purpose.

// The engine and its run, for embedders and plugins
export { createTidewatch } from './tidewatch.js';
export type { Tidewatch, TidewatchCore } from './tidewatch.js';
export type {
  Actor,
  ApplyResult,
  SnapshotRef,
  CheckResult,
  Logger,
  RunContext,
  RunFilters,
  RunKind,
  Skip,
  Staleness,
  Target,
  UpdatePlan,
  UpdateReport,
} from './types.js';
export type { HistoryEntry } from './history.js';
export type { AppliedPlan, Plan } from './plan.js';
export { GIT_PATH, REGISTRY_PATH, STAGES, isGitWatched } from './watch-split.js';

// Findings: the open record on the stale answer and the events
export { defineFinding, findingLines, readFinding, withFinding } from './findings.js';
export { DOCUMENTED_FINDING_KEYS, FINDINGS } from './known-findings.js';
export type { GitStaleness, ReleaseNotes, SignatureCheck, SignatureVerdict, TagFacts } from './known-findings.js';

// Declaring plugins, their options and services
export { definePlugin } from './plugin.js';
export type { TidewatchPlugin } from './plugin.js';
export { option } from './option.js';
export type { OptionValues } from './option.js';
export { isGoBool, splitCommaOrSpace } from './option-parsers.js';
export type { Parser } from './option-parsers.js';
export { SELECTION_OPTIONS, SHARED_OPTIONS } from './shared-options.js';
export { optionsView } from './options-view.js';
export { defineService } from './services.js';
export type { ServiceKey } from './services.js';

// Routes other plugins add to the HTTP API, and who may call them
export { httpRoutes } from './http-routes.js';
export type { HttpRouteDefinition, HttpRouteRequest, HttpRouteResponse, HttpUpgradeDefinition } from './http-routes.js';
export { ROLES, roleAllows } from './people.js';
export type { Principal, Role } from './people.js';

// Events and errors
export type { EventPayloads, TidewatchEvent } from './events.js';
export type { ApprovalEntry } from './policies.js';
export { ConfigError, TidewatchError, createError, errorMessage, errors, invalidOptions, isTidewatchError } from './errors.js';

// Shared product rules plugins read the same way
export { mapBounded } from './bounded.js';
export { bareDigest, repoDigest } from './repo-digest.js';
export { formatImageReference, parseImageReference, repositoryName, tryParseImageReference } from './image-reference.js';
export type { ImageReference } from './image-reference.js';
export { exactNamePattern, isTargeted, nameMatcher, splitFilterValues } from './request-filter.js';
export { isPlainName, patternBoundsViolation, patternCost, patternErrors, PATTERN_LIMITS } from './pattern-bounds.js';
export { isMonitorOnly, selectionFilter } from './selection-rules.js';
export { LABEL_PREFIX, WATCHTOWER_LABEL_PREFIX, parseBoolLabel, readLabel } from './labels.js';
export { formatGoDuration, parseGoDuration } from './go-duration.js';
