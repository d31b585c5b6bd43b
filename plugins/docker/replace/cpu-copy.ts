// Two of the fork's Podman switches, applied to a replacement's HostConfig in the one replacement path
// (docs/podman.md#cpu-limits-and-memory-swappiness). Podman's inspect shows a `--cpus` limit twice, as
// NanoCpus and as CpuQuota/CpuPeriod, and its create refuses the two together; the fork's `auto` drops
// NanoCpus on Podman. Tidewatch drops it only when the quota carries the same limit, so no limit is lost.
import type Docker from 'dockerode';
import type { EngineProfile } from '../engine/profile.js';

export type CpuCopyMode = 'auto' | 'full' | 'none';

export interface HostConfigCompat {
  readonly cpuCopyMode: CpuCopyMode;
  readonly disableMemorySwappiness: boolean;
  /** The engine's profile: whether it shows a `--cpus` limit twice (engine/profile.ts). */
  readonly profile: Pick<EngineProfile, 'showsCpuLimitTwice'>;
}

/** Changes `hostConfig` in place as the options say. */
export function applyHostConfigCompat(hostConfig: Docker.HostConfig, options: HostConfigCompat): void {
  if (options.disableMemorySwappiness) delete hostConfig.MemorySwappiness;
  if (options.cpuCopyMode === 'none') {
    for (const key of ['NanoCpus', 'CpuShares', 'CpuQuota', 'CpuPeriod', 'CpusetCpus', 'CpusetMems'] as const) {
      delete hostConfig[key];
    }
  } else if (options.cpuCopyMode === 'auto' && options.profile.showsCpuLimitTwice && hostConfig.NanoCpus) {
    if (hostConfig.CpuQuota || hostConfig.CpuPeriod) delete hostConfig.NanoCpus;
  }
}
