// The rollouts plugin (docs/rollouts.md): staged rollouts. Every host has a stage (`?stage=N` on a --host
// entry, an agent's --agent-stage; default 1); a candidate due on hosts of several stages is applied stage by
// stage, the next only after the one before passed its proof and soaked for --rollout-soak, and the first failed
// replacement halts every later stage until a person releases it (POST /v1/rollouts/{id}/release).
import { definePlugin } from '../../core/index.js';
import { STATE_STORE } from '../../contracts/index.js';
import { rolloutOptions } from './options.js';

export const PLUGIN_NAME = 'rollouts';

export const rolloutsPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: rolloutOptions,
  requires: [STATE_STORE],
  async apply(core, options) {
    const { startRollouts } = await import('./start.js');
    startRollouts(core, options);
  },
});
export default rolloutsPlugin;
