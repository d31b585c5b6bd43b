// What the Docker runtime remembers during one update run: dependents it stopped (and moved aside)
// before replacing what they depend on, the images replaced (for --cleanup), the targets checked (for
// post-check hooks), and the targets that were running when the run began.
// Keyed by the run's context object, so a run's state goes away with the run.
import type { RunContext, Target } from '../../../core/index.js';

export interface AsideContainer {
  readonly id: string;
  readonly originalName: string;
  readonly wasRunning: boolean;
}

export interface ReplacedImage {
  readonly imageId: string;
  readonly imageName: string;
}

export class RunState {
  /** Dependents stopped and renamed aside, by container id, until their own plan recreates them. */
  readonly asideDependents = new Map<string, AsideContainer>();
  readonly replacedImages: ReplacedImage[] = [];
  /** Replaced containers kept (marked replaced) until the run's dependents joined their successors. */
  readonly replacedContainers: { readonly id: string; readonly name: string }[] = [];
  /** Targets the run checked, by name, for the post-check hooks. */
  readonly checkedTargets = new Map<string, Target>();
  /** Targets that were running when the run discovered them, by name: running when it ends (replace/invariant.ts). */
  readonly runningAtStart = new Map<string, Target>();
}

export class RunStates {
  readonly #states = new WeakMap<RunContext, RunState>();

  of(ctx: RunContext): RunState {
    let state = this.#states.get(ctx);
    if (!state) {
      state = new RunState();
      this.#states.set(ctx, state);
    }
    return state;
  }
}
