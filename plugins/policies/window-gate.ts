// The window gate (docs/policies.md#update-windows): a run that applies on its own applies a stale target only
// while one of its windows is open; outside, the target is skipped with a reason starting `window ` and the
// time the next window opens. A person's targeted update applies at once. A target's `update-window` label
// (several windows separated by `|`, `always` for none) replaces the global --update-window.
import { errorMessage, readLabel, type Logger, type RunContext, type Skip, type Staleness, type Target } from '../../core/index.js';
import { isAutomaticRun } from './run-kind.js';
import { parseWindows, windowState, type UpdateWindow, type WindowState } from './windows.js';

export const BY = 'policies';

/** Parsed windows by spec text: a label's windows are parsed once, not at every check. */
export class WindowBook {
  readonly #parsed = new Map<string, UpdateWindow[] | Error>();
  readonly #global: UpdateWindow[];

  constructor(globalSpecs: readonly string[]) {
    this.#global = globalSpecs.flatMap((spec) => parseWindows(spec));
  }

  /** The target's windows; an Error when its label cannot be read (never "no window": see windowSkip). */
  windowsOf(target: Target): UpdateWindow[] | Error {
    const label = readLabel(target.labels, 'update-window');
    if (label === undefined) return this.#global;
    let parsed = this.#parsed.get(label);
    if (parsed === undefined) {
      try {
        parsed = parseWindows(label);
      } catch (err) {
        parsed = new Error(errorMessage(err));
      }
      // Labels are few and short; a bound keeps a hostile engine from growing this without limit.
      if (this.#parsed.size > 1_000) this.#parsed.clear();
      this.#parsed.set(label, parsed);
    }
    return parsed;
  }

  stateOf(target: Target, now: Date): WindowState | Error {
    const windows = this.windowsOf(target);
    return windows instanceof Error ? windows : windowState(windows, now);
  }
}

export interface WindowGateSettings {
  readonly now?: () => Date;
  /** True for a run that may ignore the window (an approval given with now=true). */
  readonly bypasses?: (ctx: RunContext) => boolean;
}

export function windowSkip(book: WindowBook, target: Target, staleness: Staleness, ctx: RunContext, logger: Logger, settings: WindowGateSettings = {}): Skip | undefined {
  if (ctx.kind !== 'update' || !staleness.stale || staleness.error || staleness.targetImageId) return undefined;
  if (!isAutomaticRun(ctx) || settings.bypasses?.(ctx)) return undefined;
  const state = book.stateOf(target, settings.now?.() ?? new Date());
  if (state instanceof Error) {
    // An unreadable window never widens into "any time": the user meant to limit when this container changes.
    logger.warn({ container: target.name, err: state.message }, 'the update-window label cannot be read; not applied until it is fixed');
    return { reason: `window label cannot be read (${state.message}); not applied until it is fixed`, by: BY, everyCandidate: true };
  }
  if (state.open) return undefined;
  // Time decides, not the candidate: a lower candidate is no more welcome outside the window.
  if (!state.next) return { reason: 'window closed, and none of its windows opens again', by: BY, everyCandidate: true };
  return { reason: `window closed until ${state.next.toISOString()}`, by: BY, until: state.next, everyCandidate: true };
}
