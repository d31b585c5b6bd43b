// Moving containers aside and back. A stopped old container or dependent is always renamed with the
// aside marker first, so that a process killed at any point leaves a name that says what to restore.
import type { EngineClient } from '../engine/client.js';
import type { Target } from '../../../core/index.js';
import { oldAsideName, parseOldAsideName } from './aside-names.js';
import { inspectOrUndefined, isUp, renameContainer, startContainer, stopContainer, type StopPolicy } from './container-ops.js';
import type { AsideContainer } from './run-state.js';
import { containerName } from '../target.js';

/**
 * Stops a running dependent before what it depends on is replaced: renamed aside (marked running), then
 * stopped. Returns undefined when there is nothing to stop (gone, stopped, already aside, AutoRemove).
 */
export async function moveDependentAside(
  docker: EngineClient,
  dependent: Pick<Target, 'id'>,
  policy: StopPolicy,
): Promise<AsideContainer | undefined> {
  const info = await inspectOrUndefined(docker, dependent.id);
  if (!info || !isUp(info) || parseOldAsideName(info.Name)) return undefined;
  // Stopping an AutoRemove container removes it: it is left running and replaced by its own plan.
  if (info.HostConfig.AutoRemove) return undefined;
  const originalName = containerName(info.Name);
  await renameContainer(docker, info.Id, oldAsideName(originalName, info.Id, true));
  const aside = { id: info.Id, originalName, wasRunning: true };
  await stopContainer(docker, info, policy);
  return aside;
}

/** Puts a container back under its name and starts it if it ran before; safe to repeat. */
export async function restoreAside(docker: EngineClient, aside: AsideContainer): Promise<void> {
  const info = await inspectOrUndefined(docker, aside.id);
  if (!info) return;
  if (containerName(info.Name) !== aside.originalName) await renameContainer(docker, aside.id, aside.originalName);
  if (aside.wasRunning && !isUp(info)) await startContainer(docker, aside.id);
}

/** Restores every container in the list, continuing past failures; returns the errors. */
export async function restoreAll(docker: EngineClient, containers: Iterable<AsideContainer>): Promise<string[]> {
  const errors: string[] = [];
  for (const aside of containers) {
    try {
      await restoreAside(docker, aside);
    } catch (err) {
      errors.push(`${aside.originalName}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return errors;
}
