// How a replacement or a repair stops a container on this engine: Tidewatch's --stop-timeout, and on
// Podman the reading of its StopTimeout 0 as "not set" (docs/podman.md).
import type { StopPolicy } from './container-ops.js';
import type { DockerRuntime } from '../runtime.js';

export async function stopPolicy(rt: DockerRuntime): Promise<StopPolicy> {
  return { stopTimeoutMs: rt.options.stopTimeoutMs, zeroStopTimeoutIsUnset: await rt.isPodman() };
}
