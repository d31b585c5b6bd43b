// --monitor-only and the `monitor-only` label, as a gate: a stale container is reported, never replaced. The
// rule itself is the core's, shared with the Swarm runtime (docs/configuration.md#shared-options).
import { isMonitorOnly, type Skip, type Target } from '../../core/index.js';

type MonitorOnlyOptions = Parameters<typeof isMonitorOnly>[1];

export function monitorOnlyGate(target: Target, options: MonitorOnlyOptions, by: string): Skip | undefined {
  return isMonitorOnly(target, options) ? { reason: 'monitor-only', by, reportOnly: true } : undefined;
}
