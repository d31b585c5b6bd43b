// The single Engine operations a replacement is made of, each tolerant of the state it wants already
// being there (a start of a running container, a removal of a removed one): a rollback and a repair
// repeat steps that may or may not have happened.
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import type { EngineClient } from '../engine/client.js';
import { readLabel, TidewatchError } from '../../../core/index.js';
import { engineMessage, isConflict, isNotFound, isNotModified } from '../engine/errors.js';
import type { InspectedConfig } from './recreate-config.js';

export function isUp(container: Docker.ContainerInspectInfo): boolean {
  return container.State.Running || container.State.Restarting;
}

export async function inspectOrUndefined(docker: EngineClient, idOrName: string): Promise<Docker.ContainerInspectInfo | undefined> {
  try {
    return await docker.getContainer(idOrName).inspect();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function startContainer(docker: EngineClient, id: string): Promise<void> {
  try {
    await docker.getContainer(id).start();
  } catch (err) {
    if (!isNotModified(err)) throw err;
  }
}

export async function renameContainer(docker: EngineClient, id: string, name: string): Promise<void> {
  await docker.getContainer(id).rename({ name });
}

/** Waits until the container no longer exists (an AutoRemove container removing itself). */
async function waitGone(docker: EngineClient, id: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await inspectOrUndefined(docker, id)) !== undefined) {
    if (Date.now() > deadline) throw new TidewatchError('TW_ERR_DOCKER', `container ${id} is still being removed after ${timeoutMs} ms`, 500);
    await sleep(50);
  }
}

export async function removeContainer(docker: EngineClient, id: string, removeVolumes = false): Promise<void> {
  try {
    await docker.getContainer(id).remove({ force: true, v: removeVolumes });
  } catch (err) {
    if (isNotFound(err)) return;
    // AutoRemove got there first: done once the engine has finished.
    if (isConflict(err) && /already in progress/.test(engineMessage(err))) return waitGone(docker, id);
    throw err;
  }
}

export interface StopPolicy {
  /** Tidewatch's --stop-timeout, used when the container sets no StopTimeout of its own. */
  readonly stopTimeoutMs: number;
  /**
   * The engine is Podman, whose compatible API shows StopTimeout 0 for a container created through it
   * without one (docs/podman.md): 0 then means "not set", not "kill at once".
   */
  readonly zeroStopTimeoutIsUnset?: boolean;
}

/** The signal and timeout Watchtower would use: the label, else Config.StopSignal, else SIGTERM. */
export function stopParameters(container: Docker.ContainerInspectInfo, policy: StopPolicy) {
  const config = container.Config as InspectedConfig;
  const label = readLabel(config.Labels ?? {}, 'stop-signal');
  const own = config.StopTimeout === 0 && policy.zeroStopTimeoutIsUnset ? undefined : config.StopTimeout;
  const seconds = own ?? Math.ceil(policy.stopTimeoutMs / 1000);
  return { labelSignal: label || undefined, signal: label || config.StopSignal || 'SIGTERM', seconds };
}

async function waitNotRunning(docker: EngineClient, id: string, ms: number): Promise<boolean> {
  try {
    await docker.getContainer(id).wait({ condition: 'not-running', abortSignal: AbortSignal.timeout(Math.max(ms, 1)) });
    return true;
  } catch (err) {
    if (isNotFound(err)) return true;
    return false;
  }
}

/**
 * Stops a running container gracefully. Without a `stop-signal` label `docker stop` does exactly that
 * (the engine sends Config.StopSignal); with one, the signal is sent by `kill` and the container killed
 * after the timeout, because the stop endpoint takes a signal only from API 1.42 on.
 */
export async function stopContainer(docker: EngineClient, container: Docker.ContainerInspectInfo, policy: StopPolicy): Promise<void> {
  if (!isUp(container)) return;
  const handle = docker.getContainer(container.Id);
  const { labelSignal, seconds } = stopParameters(container, policy);
  try {
    if (!labelSignal) {
      await handle.stop({ t: seconds });
      return;
    }
    await handle.kill({ signal: labelSignal });
    if (!(await waitNotRunning(docker, container.Id, seconds * 1000))) await handle.kill({ signal: 'SIGKILL' });
    await waitNotRunning(docker, container.Id, 10_000);
  } catch (err) {
    // Already stopped, or gone: the goal is reached either way.
    if (!isNotModified(err) && !isNotFound(err) && !/is not running/.test(String(err))) throw err;
  }
}
