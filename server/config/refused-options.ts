// Watchtower fork options Tidewatch does not implement (docs/watchtower-fork.md#refused-options). They are
// declared, so a Watchtower user's flag or variable is read rather than silently dropped as unknown, and
// switching one on exits 2 naming it: an option is implemented or refused, never accepted and ignored.
// Hidden from --help: nothing there to choose.
import { ConfigError, option, optionLabel, type OptionSpec } from '../../core/index.js';

const group = 'Watchtower fork options Tidewatch refuses';

export const REFUSED_OPTIONS = {
  // The fork's internal flag of its ephemeral self-update helper container; only a fork instance passes it.
  selfUpdateOrchestrator: option.boolean({
    flag: 'self-update-orchestrator', env: null, hidden: true, group,
    description: "The Watchtower fork's internal self-update helper mode.",
  }),
  ephemeralSelfUpdate: option.boolean({
    flag: 'ephemeral-self-update', hidden: true, group,
    description: "The Watchtower fork's self-update through a short-lived helper container.",
  }),
};

const WHY: Record<keyof typeof REFUSED_OPTIONS, string> = {
  selfUpdateOrchestrator: "is the Watchtower fork's internal helper mode; Tidewatch has none",
  ephemeralSelfUpdate:
    'is not implemented: Tidewatch replaces its own container with a successor started beside it (docs/watchtower-fork.md#refused-options); unset it',
};

/** Throws a ConfigError (exit 2) naming the first refused option switched on. */
export function refuseUnsupported(cfg: Readonly<Record<string, unknown>>): void {
  for (const [key, spec] of Object.entries(REFUSED_OPTIONS) as [keyof typeof REFUSED_OPTIONS, OptionSpec][]) {
    if (cfg[key] === true) throw new ConfigError(`${optionLabel(spec)} ${WHY[key]}`, spec.flag);
  }
}
