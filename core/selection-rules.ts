// The rules behind the shared selection options and the monitor-only switch (docs/configuration.md#shared-options),
// for every runtime that reads them (containers and Swarm services alike): the Watchtower fork's filters in its
// order, names → disabled names → image names → skipped image names → labels → disabled labels → enable
// label → scope, and monitor-only as label OR flag.
import { nameMatcher } from './request-filter.js';
import { parseBoolLabel, readLabel } from './labels.js';
import type { Target } from './types.js';

export interface SelectionRules {
  /** Names or anchored RE2 patterns to watch; empty: every name. */
  readonly names: readonly string[];
  /** Names or anchored RE2 patterns to leave alone. */
  readonly disableContainers: readonly string[];
  /** Anchored RE2 patterns (or exact names) for the image with its tag (`nginx:latest`); empty: every image. */
  readonly monitorImageNames: readonly string[];
  /** Anchored RE2 patterns (or exact names) of images to leave alone, matched like `monitorImageNames`. */
  readonly skipImageNames: readonly string[];
  /** `key=value` pairs (`key=`: the label is present): a target needs at least one; empty: no condition. */
  readonly enableLabels: readonly string[];
  /** `key=value` pairs (`key=`: the label is present): a target with any of them is left alone. */
  readonly disableLabels: readonly string[];
  /** Only targets labelled `enable=true`; `enable=false` always excludes. */
  readonly labelEnable: boolean;
  /** The effective scope: '' (or `none`) means only targets without a scope label. */
  readonly scope: string;
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
  const enabledByLabel = rules.enableLabels.length > 0 ? hasAnyLabel(rules.enableLabels) : undefined;
  const disabledByLabel = rules.disableLabels.length > 0 ? hasAnyLabel(rules.disableLabels) : undefined;
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
