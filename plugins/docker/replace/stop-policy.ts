// How a replacement or a repair stops a container on this engine: Tidewatch's --stop-timeout, and on
// an engine that shows an unset stop timeout as 0 (Podman, the profile's `showsUnsetStopTimeoutAsZero`) the reading
// of StopTimeout 0 as "not set" (docs/podman.md).
import type { StopPolicy } from './container-ops.js';
import type { DockerRuntime } from '../runtime.js';

export async function stopPolicy(rt: DockerRuntime): Promise<StopPolicy> {
  return { stopTimeoutMs: rt.options.stopTimeoutMs, zeroStopTimeoutIsUnset: (await rt.profile()).showsUnsetStopTimeoutAsZero };
}
