// --monitor-only and the `monitor-only` label, as a gate: a stale container is reported, never replaced.
// By default the label and the option are OR-ed; with --label-take-precedence a label that is present wins.
import { parseBoolLabel, readLabel, type Skip, type Target } from '../../core/index.js';

export interface MonitorOnlyOptions {
  readonly monitorOnly: boolean;
  readonly labelTakePrecedence: boolean;
}

/** Watchtower reads an empty label value as false. */
function labelValue(target: Target): boolean | undefined {
  const raw = readLabel(target.labels, 'monitor-only');
  return raw === '' ? false : parseBoolLabel(raw);
}

export function isMonitorOnly(target: Target, options: MonitorOnlyOptions): boolean {
  const label = labelValue(target);
  if (options.labelTakePrecedence && label !== undefined) return label;
  return options.monitorOnly || label === true;
}

export function monitorOnlyGate(target: Target, options: MonitorOnlyOptions, by: string): Skip | undefined {
  return isMonitorOnly(target, options) ? { reason: 'monitor-only', by, reportOnly: true } : undefined;
}
