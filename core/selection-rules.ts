// The rules behind the shared selection options and the monitor-only switch (docs/configuration.md#shared-options),
// for every runtime that reads them (containers and Swarm services alike): the Watchtower fork's filters in its
// order, names → disabled names → enable label → scope, and monitor-only as label OR flag.
import { nameMatcher } from './request-filter.js';
import { parseBoolLabel, readLabel } from './labels.js';
import type { Target } from './types.js';

export interface SelectionRules {
  /** Names or anchored RE2 patterns to watch; empty: every name. */
  readonly names: readonly string[];
  /** Names or anchored RE2 patterns to leave alone. */
  readonly disableContainers: readonly string[];
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

/** Whether a target passes the rules, read from its own labels. */
export function selectionFilter(rules: SelectionRules): (target: Target) => boolean {
  const named = rules.names.length > 0 ? matchesAny(rules.names) : undefined;
  const disabled = rules.disableContainers.length > 0 ? matchesAny(rules.disableContainers) : undefined;
  return (target) => {
    if (named && !named(target.name)) return false;
    if (disabled?.(target.name)) return false;
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
