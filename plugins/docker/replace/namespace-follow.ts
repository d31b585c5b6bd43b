// A container put back (a run's cleanup restoring a dependent, or the start-up repair) whose `container:`
// namespace owner was replaced meanwhile cannot simply be started: the engine would look for the old owner
// by id. It is recreated on the same image joined to the live owner, the way a dependent's restart
// recreates it (docs/replacement.md#shared-namespaces). The old one is moved aside first and removed
// last, so a process killed in between leaves names the repair understands.
import { errorMessage, type Logger } from '../../../core/index.js';
import { oldAsideName, parseOldAsideName, stagingName } from './aside-names.js';
import { inspectOrUndefined, removeContainer, renameContainer, startContainer } from './container-ops.js';
import { followOwners } from './namespaces.js';
import { carryFiles } from './copy-file.js';
import { createLike, imageDefaults } from './replace.js';
import type { AsideContainer } from './run-state.js';
import type { DockerRuntime } from '../runtime.js';
import { imageNameOf } from '../target.js';

/** Recreates `aside.id` joined to its owners' successors when one moved; true when it did. */
export async function followMovedOwners(rt: DockerRuntime, aside: AsideContainer): Promise<boolean> {
  const info = await inspectOrUndefined(rt.docker, aside.id);
  if (!info || !(await followOwners(rt.docker, info.HostConfig)).changed) return false;
  const name = aside.originalName;
  const image = imageNameOf(info.Config.Image, info.Config.Labels ?? {});
  const newId = await createLike(rt, info, await imageDefaults(rt.docker, info.Image), image, stagingName(name, info.Id));
  // Recreated, it would lose the files only its writable layer held (docs/watchtower-fork.md#the-copy-file-label).
  await carryFiles(rt.docker, info, newId, name, rt.logger).catch(async (err: unknown) => {
    await removeContainer(rt.docker, newId).catch(() => undefined);
    throw err;
  });
  if (!parseOldAsideName(info.Name)) await renameContainer(rt.docker, info.Id, oldAsideName(name, info.Id, aside.wasRunning));
  await renameContainer(rt.docker, newId, name);
  if (aside.wasRunning) await startContainer(rt.docker, newId);
  await removeContainer(rt.docker, info.Id);
  return true;
}

/** followMovedOwners for each container put back; returns what it could not do. */
export async function followAll(rt: DockerRuntime, containers: Iterable<AsideContainer>, logger: Logger): Promise<string[]> {
  const errors: string[] = [];
  for (const aside of containers) {
    try {
      if (await followMovedOwners(rt, aside)) logger.info({ container: aside.originalName }, 'recreated in the namespaces of its replaced owner');
    } catch (err) {
      errors.push(`${aside.originalName}: ${errorMessage(err)}`);
    }
  }
  return errors;
}
