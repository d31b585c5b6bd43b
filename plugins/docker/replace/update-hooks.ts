// The lifecycle hooks around a replacement that are only logged when they fail (docs/interface.md): a
// dependent's pre-update, the new container's post-update, and the rollback hooks (docs/snapshots.md#hooks):
// pre-rollback in the container being rolled back from while it runs, post-rollback in the restored one.
import { errorMessage, type Logger } from '../../../core/index.js';
import type { DockerRuntime } from '../runtime.js';
import { containerName } from '../target.js';
import { parseOldAsideName } from './aside-names.js';
import { inspectOrUndefined } from './container-ops.js';
import { runHook, type HookPhase } from './lifecycle-hooks.js';

/** Runs `phase` in the container `id` when it runs; a failure is logged, never the update's. */
export async function loggedHook(rt: DockerRuntime, id: string, phase: HookPhase, logger: Logger, options: { skipAside?: boolean } = {}): Promise<void> {
  if (!rt.options.enableLifecycleHooks) return;
  try {
    const info = await inspectOrUndefined(rt.docker, id);
    if (!info?.State.Running || info.State.Restarting) return;
    if (options.skipAside && parseOldAsideName(info.Name)) return;
    const result = await runHook(rt.docker, info, phase, { uid: rt.options.lifecycleUid, gid: rt.options.lifecycleGid });
    if (result && (result.timedOut || result.exitCode !== 0)) {
      logger.warn({ container: containerName(info.Name), exit_code: result.exitCode, timed_out: result.timedOut }, `${phase} command failed`);
    }
  } catch (err) {
    logger.warn({ err: errorMessage(err) }, `${phase} command could not run`);
  }
}

/**
 * A dependent stopped for what it depends on gets its pre-update hook first, as Watchtower runs it: its
 * post-update hook runs when its own plan recreates it, so its scripts see both (docs/interface.md). Only
 * logged when it fails: the dependent's restart is not the update being decided.
 */
export const dependentPreUpdate = (rt: DockerRuntime, id: string, logger: Logger) => loggedHook(rt, id, 'pre-update', logger, { skipAside: true });

/** post-update runs in the new container once it started; like Watchtower, a failure is only logged. */
export const postUpdate = (rt: DockerRuntime, newId: string, logger: Logger) => loggedHook(rt, newId, 'post-update', logger);
