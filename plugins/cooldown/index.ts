// The cooldown plugin (`--cooldown-delay`, label `cooldown-delay`): a gate that defers updating to an
// image younger than the delay. It taps at the `defer` gate stage, after report-only gates such as
// monitor-only: Watchtower does not apply the cooldown to monitor-only containers. Image ages come from
// the REMOTE_IMAGES service (the registry plugin), without which it cannot start.
import { REMOTE_IMAGES, STAGES, definePlugin, option, type OptionValues } from '../../core/index.js';
import { cooldownGate } from './gate.js';

export const PLUGIN_NAME = 'cooldown';
const group = 'Update behaviour';

const cooldownOptions = {
  delayMs: option.cooldown({
    flag: 'cooldown-delay', group,
    description: 'Minimum image age before an update is applied (units s m h d w M, e.g. 3d12h); 0 is off.',
  }),
  platform: option.string({
    flag: 'cooldown-platform', pattern: '^([a-z0-9]+/[a-z0-9_]+(/[a-z0-9]+)?)?$', valueName: '<os/arch>', group,
    description: "Platform whose image is aged in a multi-arch index (default: the registry plugin's).",
  }),
};
export type CooldownPluginOptions = Partial<OptionValues<typeof cooldownOptions>>;

export const cooldownPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: cooldownOptions,
  requires: [REMOTE_IMAGES],
  apply(core, options) {
    const settings = { delayMs: options.delayMs, ...(options.platform ? { platform: options.platform } : {}) };
    core.hooks.gate.tapPromise({ name: PLUGIN_NAME, stage: STAGES.gate.defer }, (target, staleness, ctx) =>
      cooldownGate(core.services.require(REMOTE_IMAGES), target, staleness, ctx, settings),
    );
  },
});

export { parseCooldownLabel } from './duration.js';
