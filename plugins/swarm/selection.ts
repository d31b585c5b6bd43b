// Which services are watched: the rules containers follow (docs/swarm.md#which-services-are-watched), read from
// the service's own labels (Spec.Labels): names → disabled names → enable label → scope. Without --swarm a
// service must opt in with `tidewatch.enable=true` (or Watchtower's alias). Other runtimes' targets pass.
// Monitor-only is read the way the docker runtime reads it.
import { nameMatcher, parseBoolLabel, readLabel, type Target } from '../../core/index.js';
import type { SwarmOptionValues } from './options.js';
import { RUNTIME } from './target.js';

export interface ServiceSelection {
  /** --swarm: every service; otherwise only the ones labelled enable=true. */
  readonly all: boolean;
  readonly names: readonly string[];
  readonly disableContainers: readonly string[];
  readonly labelEnable: boolean;
  readonly scope: string;
}

function matchesAny(patterns: readonly string[]): (name: string) => boolean {
  const matchers = patterns.map(nameMatcher);
  return (name) => matchers.some((match) => match(name));
}

function isUnscoped(scope: string | undefined): boolean {
  return scope === undefined || scope === '' || scope === 'none';
}

export function isWatchedService(target: Target, options: ServiceSelection): boolean {
  if (options.names.length > 0 && !matchesAny(options.names)(target.name)) return false;
  if (options.disableContainers.length > 0 && matchesAny(options.disableContainers)(target.name)) return false;
  const enabled = parseBoolLabel(readLabel(target.labels, 'enable'));
  if (enabled === false) return false;
  if ((options.labelEnable || !options.all) && enabled !== true) return false;
  const scope = readLabel(target.labels, 'scope');
  return isUnscoped(options.scope) ? isUnscoped(scope) : scope === options.scope;
}

export function selectServices(targets: readonly Target[], options: ServiceSelection): Target[] {
  return targets.filter((target) => target.runtime !== RUNTIME || isWatchedService(target, options));
}

/** The monitor-only rule containers follow: label OR flag, a set label alone with --label-take-precedence; an empty label is false. */
export function isMonitorOnly(
  target: Target,
  options: Pick<SwarmOptionValues, 'monitorOnly' | 'labelTakePrecedence'>,
): boolean {
  const raw = readLabel(target.labels, 'monitor-only');
  const label = raw === '' ? false : parseBoolLabel(raw);
  if (options.labelTakePrecedence && label !== undefined) return label;
  return options.monitorOnly || label === true;
}
