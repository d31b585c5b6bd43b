// The Watchtower fork's container filters, in its order: names → disabled names → enable label → scope.
// Containers of a replacement in progress (renamed aside or staged) are never targets, like the fork's
// `watchtower-old-*` exclusion. Targets of other runtimes pass through untouched.
import { nameMatcher, parseBoolLabel, readLabel, type Target } from '../../core/index.js';
import { isReplacementName } from './aside-names.js';

export interface SelectionOptions {
  readonly names: readonly string[];
  readonly disableContainers: readonly string[];
  readonly labelEnable: boolean;
  /** The effective scope: '' (or `none`) means only containers without a scope. */
  readonly scope: string;
}

export type TargetFilter = (target: Target) => boolean;

function matchesAny(patterns: readonly string[]): (name: string) => boolean {
  const matchers = patterns.map(nameMatcher);
  return (name) => matchers.some((match) => match(name));
}

export function namesFilter(names: readonly string[]): TargetFilter {
  if (names.length === 0) return () => true;
  const matches = matchesAny(names);
  return (target) => matches(target.name);
}

export function disableFilter(disabled: readonly string[]): TargetFilter {
  if (disabled.length === 0) return () => true;
  const matches = matchesAny(disabled);
  return (target) => !matches(target.name);
}

/** `enable=false` always excludes; with `labelEnable`, only `enable=true` is watched. */
export function enableFilter(labelEnable: boolean): TargetFilter {
  return (target) => {
    const enabled = parseBoolLabel(readLabel(target.labels, 'enable'));
    if (enabled === false) return false;
    return !labelEnable || enabled === true;
  };
}

function isUnscoped(scope: string | undefined): boolean {
  return scope === undefined || scope === '' || scope === 'none';
}

/** Fork semantics: no scope (or `none`) matches only unscoped containers; a scope matches its label exactly. */
export function scopeFilter(scope: string): TargetFilter {
  return (target) => {
    const own = readLabel(target.labels, 'scope');
    return isUnscoped(scope) ? isUnscoped(own) : own === scope;
  };
}

/** The option's scope, else the scope label of Tidewatch's own container (fork semantics). */
export function effectiveScope(optionScope: string, targets: readonly Target[], ownId: string | undefined): string {
  if (optionScope !== '') return optionScope;
  if (!ownId) return '';
  const own = targets.find((t) => t.runtime === 'docker' && t.id === ownId);
  return (own && readLabel(own.labels, 'scope')) || '';
}

export function selectDockerTargets(targets: readonly Target[], options: SelectionOptions): Target[] {
  const filters: TargetFilter[] = [
    (target) => !isReplacementName(target.name),
    namesFilter(options.names),
    disableFilter(options.disableContainers),
    enableFilter(options.labelEnable),
    scopeFilter(options.scope),
  ];
  return targets.filter((target) => target.runtime !== 'docker' || filters.every((keep) => keep(target)));
}
