// The swarm runtime's options, each declared once (docs/configuration.md#declaring-options): whether every
// service is watched or only the ones that opt in, how long an update is followed, and the selection rules it
// shares with the docker runtime (names, --label-enable, --disable-containers, --scope, monitor-only, no-pull).
import { SELECTION_OPTIONS, SHARED_OPTIONS, option, type OptionValues } from '../../core/index.js';

const group = 'Docker Swarm';

export const swarmOptions = {
  swarm: option.boolean({
    flag: 'swarm', watchtowerEnv: null, group,
    description:
      'Watch every Swarm service on the engines that are Swarm managers. Without it, only services labelled tidewatch.enable=true are watched.',
  }),
  updateTimeoutMs: option.duration({
    flag: 'swarm-update-timeout', watchtowerEnv: null, default: 600_000, positive: true, group,
    description: "How long a service update is followed before it is reported failed (Swarm carries on with it).",
  }),
  pollIntervalMs: option.duration({
    flag: 'swarm-poll-interval', watchtowerEnv: null, default: 1000, positive: true, hidden: true, group,
    description: "How often a service's update status is read while Swarm updates it.",
  }),
  // The eight selection filters, declared once in the core and applied by it (core.applySelection).
  ...SELECTION_OPTIONS,
  monitorOnly: SHARED_OPTIONS.monitorOnly,
  noPull: SHARED_OPTIONS.noPull,
  labelTakePrecedence: SHARED_OPTIONS.labelTakePrecedence,
};

export type SwarmOptionValues = OptionValues<typeof swarmOptions>;
/** What an embedder passes: any subset; the declarations' defaults fill the rest. */
export type SwarmPluginOptions = Partial<SwarmOptionValues>;
