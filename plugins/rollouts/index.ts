// The rollouts plugin (docs/rollouts.md): staged rollouts. Every host has a stage (`?stage=N` on a --host
// entry, an agent's --agent-stage; default 1); a candidate due on hosts of several stages is applied stage by
// stage, the next only after the one before passed its proof and soaked for --rollout-soak, and the first failed
// replacement halts every later stage until a person releases it (POST /v1/rollouts/{id}/release).
import { definePlugin } from '../../core/index.js';
import { STATE_STORE } from '../../contracts/index.js';
import { apiServes } from '../../contracts/shared/api-endpoints.js';
import { firstUse } from '../../contracts/shared/first-use.js';
import { RolloutLedger } from './ledger.js';
import { rolloutOptions } from './options.js';
import { announce, tapRollouts } from './taps.js';

export const PLUGIN_NAME = 'rollouts';

export const rolloutsPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: rolloutOptions,
  requires: [STATE_STORE],
  async apply(core, options) {
    const ledger = new RolloutLedger(core.services.require(STATE_STORE));
    // With the API serving /v1/rollouts, or a rollout going on (its soak resumes now), everything starts now.
    if (apiServes(core, 'rollouts') || ledger.active().length > 0) {
      (await import('./start.js')).startRollouts(core, options, ledger);
      return;
    }
    // Otherwise the gate and its state load with the first review or gate call (docs/plugins.md#loading-code-at-first-use).
    // Rollouts are made by the gate: until it ran in this process none is going on, so a run report has none to record.
    const rollouts = firstUse(async () => (await import('./start.js')).makeRollouts(core, options, ledger));
    tapRollouts(core, rollouts, () => rollouts.loaded());
    core.onClose(() => rollouts.loaded()?.close());
    announce(core, options, 0);
  },
});
export default rolloutsPlugin;
