// When the target is Tidewatch's own container. It is replaced like any other, except that it keeps
// running until its successor removes it; so the successor must be able to start next to it.
import type Docker from 'dockerode';
import type { EngineClient } from '../engine/client.js';
import type { Target } from '../../../core/index.js';
import { inspectOrUndefined } from '../replace/container-ops.js';

export type Ownership = 'own' | 'other' | 'unknown';

/**
 * `unknown`: the target carries the own-container label, this process runs in a container, yet its id
 * could not be found. Replacing it could stop this very process halfway, so it is left alone.
 */
export function ownership(target: Target, ownId: string | undefined, inContainer: boolean): Ownership {
  if (ownId) return target.id === ownId ? 'own' : 'other';
  return target.isSelf && inContainer ? 'unknown' : 'other';
}

export function hasPublishedPorts(container: Docker.ContainerInspectInfo): boolean {
  return Object.values(container.HostConfig.PortBindings ?? {}).some((bindings) =>
    (bindings as { HostPort?: string }[] | null)?.some((binding) => binding.HostPort),
  );
}

/** Why the own container cannot be replaced now, or undefined when it can. */
export async function selfUpdateBlocker(docker: EngineClient, target: Target, selfUpdate: boolean, ephemeral: boolean): Promise<string | undefined> {
  if (!selfUpdate) return 'self-update is disabled';
  // The helper frees the ports before the replacement starts (self/ephemeral.ts).
  if (ephemeral) return undefined;
  const info = await inspectOrUndefined(docker, target.id);
  // Watchtower's rule: the successor could not bind the ports while this instance still holds them.
  if (info && hasPublishedPorts(info)) return 'self-update is disabled: published ports';
  return undefined;
}
