// The rules behind the shared selection options (SELECTION_OPTIONS, applied here once for every runtime that
// hands them to `core.applySelection`) and the monitor-only switch (docs/configuration.md#shared-options),
// for every runtime that reads them (containers and Swarm services alike): the Watchtower fork's filters in its
// order, names → disabled names → image names → skipped image names → labels → disabled labels → enable
// label → scope, and monitor-only as label OR flag.
import { nameMatcher } from './request-filter.js';
import { parseBoolLabel, readLabel } from './labels.js';
import type { RunContext, Target } from './types.js';
import type { OptionValues } from './option.js';
import type { SELECTION_OPTIONS } from './shared-options.js';

/**
 * The values of the eight selection options (SELECTION_OPTIONS): names or anchored RE2 patterns to watch
 * (`names`, empty: every name) and to leave alone (`disableContainers`); anchored patterns for the image with its
 * tag (`monitorImageNames`, `skipImageNames`); `key=value` pairs (`key=`: the label is present) a target needs one
 * of (`enableContainersByLabel`) or must have none of (`disableContainersByLabel`); only targets labelled
 * `enable=true` (`labelEnable`; `enable=false` always excludes); the scope ('' or `none`: only unscoped targets).
 */
export type SelectionRules = { readonly [K in keyof SelectionValues]: SelectionValues[K] extends (infer I)[] ? readonly I[] : SelectionValues[K] };
type SelectionValues = OptionValues<typeof SELECTION_OPTIONS>;

/** What a runtime adds to the shared rules when the core applies them to its targets (`core.applySelection`). */
export interface SelectionAdjustments {
  /** The run's effective scope, when the runtime derives one (the docker runtime: its own container's label). */
  readonly scope?: (targets: readonly Target[], ctx: RunContext) => string;
  /** Only targets labelled `enable=true`, whatever `--label-enable` says (Swarm services without --swarm). */
  readonly onlyEnabled?: boolean;
  /** Targets never selected, whatever the options say (the docker runtime's replacements in progress). */
  readonly exclude?: (target: Target) => boolean;
}

function matchesAny(patterns: readonly string[]): (name: string) => boolean {
  const matchers = patterns.map(nameMatcher);
  return (name) => matchers.some((match) => match(name));
}

function isUnscoped(scope: string | undefined): boolean {
  return scope === undefined || scope === '' || scope === 'none';
}

/**
 * The image name the fork's image filters read: the reference the target was started from, `:latest` added
 * when it has no tag (a registry's port is not a tag).
 */
export function imageNameWithTag(image: string): string {
  if (image === '') return 'unknown:latest';
  return image.slice(image.lastIndexOf('/') + 1).includes(':') ? image : `${image}:latest`;
}

/** `key=value` pairs as a test on a target's own labels (the key read literally, no prefix added). */
function hasAnyLabel(pairs: readonly string[]): (labels: Readonly<Record<string, string>>) => boolean {
  const wanted = pairs.map((pair) => {
    const eq = pair.indexOf('=');
    return eq === -1 ? { key: pair, value: '' } : { key: pair.slice(0, eq), value: pair.slice(eq + 1) };
  });
  return (labels) =>
    wanted.some(({ key, value }) => Object.hasOwn(labels, key) && (value === '' || labels[key] === value));
}

/** Whether a target passes the rules, read from its own labels. */
export function selectionFilter(rules: SelectionRules): (target: Target) => boolean {
  const named = rules.names.length > 0 ? matchesAny(rules.names) : undefined;
  const disabled = rules.disableContainers.length > 0 ? matchesAny(rules.disableContainers) : undefined;
  const images = rules.monitorImageNames.length > 0 ? matchesAny(rules.monitorImageNames) : undefined;
  const skippedImages = rules.skipImageNames.length > 0 ? matchesAny(rules.skipImageNames) : undefined;
  const enabledByLabel = rules.enableContainersByLabel.length > 0 ? hasAnyLabel(rules.enableContainersByLabel) : undefined;
  const disabledByLabel = rules.disableContainersByLabel.length > 0 ? hasAnyLabel(rules.disableContainersByLabel) : undefined;
  return (target) => {
    if (named && !named(target.name)) return false;
    if (disabled?.(target.name)) return false;
    if (images || skippedImages) {
      const image = imageNameWithTag(target.image);
      if (images && !images(image)) return false;
      if (skippedImages?.(image)) return false;
    }
    if (enabledByLabel && !enabledByLabel(target.labels)) return false;
    if (disabledByLabel?.(target.labels)) return false;
    const enabled = parseBoolLabel(readLabel(target.labels, 'enable'));
    if (enabled === false || (rules.labelEnable && enabled !== true)) return false;
    const scope = readLabel(target.labels, 'scope');
    // Fork semantics: no scope (or `none`) matches only unscoped targets; a scope matches its label exactly.
    return isUnscoped(rules.scope) ? isUnscoped(scope) : scope === rules.scope;
  };
}

/**
 * A runtime's targets as its selection options select them, in the `select` hook (core.applySelection): the
 * targets of other runtimes pass untouched. The one place the shared selection options are applied.
 */
export function selectRuntimeTargets(
  targets: readonly Target[],
  ctx: RunContext,
  runtime: string,
  rules: SelectionRules,
  how: SelectionAdjustments = {},
): Target[] {
  const scope = how.scope ? how.scope(targets, ctx) : rules.scope;
  const selected = selectionFilter({ ...rules, scope, labelEnable: rules.labelEnable || how.onlyEnabled === true });
  return targets.filter((target) => target.runtime !== runtime || (!how.exclude?.(target) && selected(target)));
}

export interface MonitorOnlyOptions {
  readonly monitorOnly: boolean;
  readonly labelTakePrecedence: boolean;
}

/**
 * `--monitor-only` and the `monitor-only` label: OR-ed, or with `labelTakePrecedence` a label that is present
 * decides alone. Watchtower reads an empty label value as false.
 */
export function isMonitorOnly(target: Target, options: MonitorOnlyOptions): boolean {
  const raw = readLabel(target.labels, 'monitor-only');
  const label = raw === '' ? false : parseBoolLabel(raw);
  if (options.labelTakePrecedence && label !== undefined) return label;
  return options.monitorOnly || label === true;
}
