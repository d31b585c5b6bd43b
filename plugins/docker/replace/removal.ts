// Removing the container a replacement replaced, once its successor is proven (docs/replacement.md#proof).
// Kept apart from replace.ts because a run's end removes the replaced containers kept for their
// dependents (update-taps.ts) by the same rules: one retry, then the `replaced` marker, so that a
// start-up repair removes it instead of rolling the update back.
import { errorMessage, type Logger } from '../../../core/index.js';
import { replacedName } from './aside-names.js';
import { removeContainer, renameContainer } from './container-ops.js';
import type { RunState } from './run-state.js';
import type { DockerRuntime } from '../runtime.js';

/** The old container is kept until the run ends, for its dependents: renamed with the `replaced` marker meanwhile. */
export async function deferRemoval(rt: DockerRuntime, state: RunState, id: string, logger: Logger, name: string): Promise<void> {
  try {
    await renameContainer(rt.docker, id, replacedName(name, id));
    state.replacedContainers.push({ id, name });
  } catch (err) {
    logger.warn({ container: name, err: errorMessage(err) }, 'could not mark the replaced container: removed at once');
    await removeOld(rt, id, logger, name);
  }
}

/** At the end of a run: the replaced containers kept for their dependents go (removeOld's retry and marker). */
export async function removeReplaced(rt: DockerRuntime, state: RunState, logger: Logger): Promise<void> {
  for (const { id, name } of state.replacedContainers.splice(0)) await removeOld(rt, id, logger, name);
}

/**
 * The new container is proven. A failed removal of the old one is retried once; then the old one is
 * renamed with the `replaced` marker so that a repair removes it instead of rolling the update back.
 */
export async function removeOld(rt: DockerRuntime, id: string, logger: Logger, name: string): Promise<void> {
  for (let attempt = 1; attempt <= 2; attempt++) {
    try {
      await removeContainer(rt.docker, id, rt.options.removeVolumes);
      return;
    } catch (err) {
      if (attempt === 2) logger.error({ container: name, err: errorMessage(err) }, 'could not remove the replaced container');
    }
  }
  await renameContainer(rt.docker, id, replacedName(name, id)).catch((err: unknown) =>
    logger.error({ container: name, err: errorMessage(err) }, 'could not mark the replaced container'),
  );
}
