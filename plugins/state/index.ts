// The state plugin (docs/state.md): opens the one state store under --data-dir (memory only without it),
// provides it as STATE_STORE and rollback on demand as ROLLBACKS, and records what runs find and change:
// last checks, run history, the audit trail, previous images and holds. Loaded first, so every other
// plugin finds the store when it is applied.
import { SHARED_OPTIONS, definePlugin } from '../../core/index.js';

export const PLUGIN_NAME = 'state';

export const stateOptions = {
  dataDir: SHARED_OPTIONS.dataDir,
};

export const statePlugin = definePlugin({
  name: PLUGIN_NAME,
  options: stateOptions,
  async apply(core, options) {
    const { applyState } = await import('./start.js');
    await applyState(core, options.dataDir);
  },
});
export default statePlugin;
