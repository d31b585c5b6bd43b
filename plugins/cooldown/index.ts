// The cooldown plugin (`--cooldown-delay`, label `cooldown-delay`): a gate that defers updating to an
// image younger than the delay. It taps late (stage 10) so that a report-only gate such as
// monitor-only answers first: Watchtower does not apply the cooldown to monitor-only containers.
import { REMOTE_IMAGES, getService, type JsonSchema, type TidewatchPlugin } from '../../core/index.js';
import { cooldownGate } from './gate.js';

export const PLUGIN_NAME = 'cooldown';
export const COOLDOWN_STAGE = 10;

export interface CooldownPluginOptions {
  /** Global delay in milliseconds (the server parses `--cooldown-delay`); 0 or unset is off. */
  delayMs?: number;
  /** Platform to age in a multi-arch index, `os/arch[/variant]`; default the registry plugin's. */
  platform?: string;
}

const optionsSchema: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    delayMs: { type: 'number', minimum: 0, default: 0 },
    platform: { type: 'string', pattern: '^[a-z0-9]+/[a-z0-9_]+(/[a-z0-9]+)?$' },
  },
  additionalProperties: false,
});

export const cooldownPlugin: TidewatchPlugin<CooldownPluginOptions> = {
  name: PLUGIN_NAME,
  optionsSchema,
  apply(core, options) {
    const settings = {
      delayMs: options.delayMs ?? 0,
      ...(options.platform ? { platform: options.platform } : {}),
    };
    core.hooks.gate.tapPromise({ name: PLUGIN_NAME, stage: COOLDOWN_STAGE }, (target, staleness, ctx) =>
      cooldownGate(getService(core, REMOTE_IMAGES), target, staleness, ctx, settings),
    );
  },
};

export { parseCooldownLabel } from './duration.js';
