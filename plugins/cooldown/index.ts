// The cooldown plugin (`--cooldown-delay`, label `cooldown-delay`): a gate that defers updating to an
// image younger than the delay. It taps at the `defer` gate stage, after report-only gates such as
// monitor-only: Watchtower does not apply the cooldown to monitor-only containers. Image ages come from
// the REMOTE_IMAGES service (the registry plugin), without which it cannot start.
import { STAGES, definePlugin, invalidOptions, option, type OptionValues } from '../../core/index.js';
import { REMOTE_IMAGES } from '../../contracts/index.js';
import { parseCooldownOption } from './duration.js';
import { cooldownGate } from './gate.js';

export const PLUGIN_NAME = 'cooldown';
const group = 'Update behaviour';

const cooldownOptions = {
  // Milliseconds; written as cooldown delays (`12h`, `3d12h`, `2w`, `1M`; `0` is off), shown as durations.
  delayMs: option.custom({
    kind: 'cooldown', flag: 'cooldown-delay', valueName: '<delay>', default: 0, parse: parseCooldownOption,
    schema: { type: 'number', minimum: 0 }, group,
    description: 'Minimum image age before an update is applied (units s m h d w M, e.g. 3d12h); 0 is off.',
  }),
  platform: option.string({
    flag: 'cooldown-platform', pattern: '^([a-z0-9]+/[a-z0-9_]+(/[a-z0-9]+)?)?$', valueName: '<os/arch>', group,
    description: "Platform whose image is aged in a multi-arch index (default: the registry plugin's).",
  }),
  // The fork's variables for the same choice, one part each (docs/watchtower-fork.md#cooldown-platform).
  platformOs: option.string({
    flag: 'cooldown-platform-os', pattern: '^[a-z0-9]*$', valueName: '<os>', group,
    description: 'OS part of the aged platform (the Watchtower fork\'s variable); default linux.',
  }),
  platformArch: option.string({
    flag: 'cooldown-platform-arch', pattern: '^[a-z0-9_]*$', valueName: '<arch>', group,
    description: "Architecture part of the aged platform (the Watchtower fork's variable); default this machine's.",
  }),
  platformVariant: option.string({
    flag: 'cooldown-platform-variant', pattern: '^[a-z0-9]*$', valueName: '<variant>', group,
    description: "Variant part of the aged platform, e.g. v7 (the Watchtower fork's variable).",
  }),
};

/** Node's architecture names → the OCI ones images carry. */
const OCI_ARCH: Readonly<Record<string, string>> = { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' };

/** `--cooldown-platform`, else the fork's three parts (a part not given: linux, this machine's architecture). */
export function cooldownPlatform(o: Pick<OptionValues<typeof cooldownOptions>, 'platform' | 'platformOs' | 'platformArch' | 'platformVariant'>): string | undefined {
  if (o.platform) return o.platform;
  if (!o.platformOs && !o.platformArch && !o.platformVariant) return undefined;
  const arch = o.platformArch || OCI_ARCH[process.arch] || process.arch;
  return [o.platformOs || 'linux', arch, ...(o.platformVariant ? [o.platformVariant] : [])].join('/');
}
export type CooldownPluginOptions = Partial<OptionValues<typeof cooldownOptions>>;

export const cooldownPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: cooldownOptions,
  requires: [REMOTE_IMAGES],
  check(options, label) {
    if (options.platform && (options.platformOs || options.platformArch || options.platformVariant)) {
      throw invalidOptions('cooldown-platform', `${label('platform')} and ${label('platformOs')}, ${label('platformArch')} or ${label('platformVariant')} cannot be used together: give the platform once`);
    }
    return [];
  },
  apply(core, options) {
    const platform = cooldownPlatform(options);
    const settings = { delayMs: options.delayMs, ...(platform ? { platform } : {}) };
    core.hooks.gate.tapPromise({ name: PLUGIN_NAME, stage: STAGES.gate.defer }, (target, staleness, ctx) =>
      cooldownGate(core.services.require(REMOTE_IMAGES), target, staleness, ctx, settings),
    );
  },
});

export { parseCooldownLabel } from './duration.js';
