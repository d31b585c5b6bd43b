// The runtime's promise, checked at the end of every update run (docs/stopping.md#the-invariant): a
// container that was running when the run discovered it is running under its own name when the run ends,
// on the new image or the old one. A violation (whatever path led to it) is repaired on the spot and
// reported as a failure, never as an update. With --no-restart the user asked for stopped successors, so
// there is nothing to enforce.
import { errorMessage, type Logger, type Target } from '../../../core/index.js';
import { inspectOrUndefined, isUp, startContainer } from './container-ops.js';
import { repairInterrupted } from './repair.js';
import type { DockerRuntime } from '../runtime.js';

export interface Violation {
  readonly target: Target;
  readonly error: string;
}

async function enforceOne(rt: DockerRuntime, target: Target): Promise<string | undefined> {
  let info = await inspectOrUndefined(rt.docker, target.name);
  if (info && isUp(info)) return undefined;
  const found = info ? `left ${info.State.Status}` : 'missing';
  // Gone from its name: what a replacement moved aside or staged is put back by the repair.
  if (!info) {
    await repairInterrupted(rt);
    info = await inspectOrUndefined(rt.docker, target.name);
    if (!info) return `${found} after the run, and nothing was left to restore it from`;
  }
  if (!isUp(info)) await startContainer(rt.docker, info.Id);
  return `${found} under its name after the run; started again`;
}

export async function enforceRunning(rt: DockerRuntime, ranAtStart: Iterable<Target>, logger: Logger): Promise<Violation[]> {
  if (rt.options.noRestart) return [];
  const violations: Violation[] = [];
  for (const target of ranAtStart) {
    let error: string | undefined;
    try {
      error = await enforceOne(rt, target);
    } catch (err) {
      error = `not running after the run, and could not be started: ${errorMessage(err)}`;
    }
    if (error === undefined) continue;
    logger.error({ container: target.name, err: error }, 'a container that was running before the run was not');
    violations.push({ target, error });
  }
  return violations;
}
