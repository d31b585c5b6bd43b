// The state plugin (docs/state.md): opens the one state store under --data-dir (memory only without it),
// provides it as STATE_STORE and rollback on demand as ROLLBACKS, and records what runs find and change:
// last checks, run history, the audit trail, previous images and holds. Loaded first, so every other
// plugin finds the store when it is applied.
import { SHARED_OPTIONS, definePlugin, invalidOptions } from '../../core/index.js';
import { snapshotOptions } from './snapshot-options.js';

export const PLUGIN_NAME = 'state';

export const stateOptions = {
  dataDir: SHARED_OPTIONS.dataDir,
  ...snapshotOptions,
};

export const statePlugin = definePlugin({
  name: PLUGIN_NAME,
  options: stateOptions,
  check(options, label) {
    // Snapshots live in the data directory (docs/snapshots.md#options): asked for all, they need one.
    if (options.snapshotVolumes && !options.dataDir) {
      throw invalidOptions('snapshot-volumes', `${label('snapshotVolumes')} needs ${label('dataDir')}: snapshots are kept in <data-dir>/snapshots/`);
    }
    return [];
  },
  async apply(core, options) {
    const { applyState } = await import('./start.js');
    await applyState(core, options.dataDir, {
      all: options.snapshotVolumes,
      retention: options.snapshotRetention,
      maxBytes: options.snapshotMaxSize,
      available: Boolean(options.dataDir),
    });
  },
});
export default statePlugin;
