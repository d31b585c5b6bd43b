// The policies plugin (docs/policies.md): update windows (`--update-window`, label `update-window`) decide when
// runs may apply a stale container; approvals (`--approval`, label `approval`) decide which updates wait for a
// person. Both are gates; approving is a targeted update of exactly one candidate through the normal path.
import { definePlugin } from '../../core/index.js';
import { STATE_STORE } from '../../contracts/index.js';
import { policyOptions } from './options.js';

export const PLUGIN_NAME = 'policies';

export const policiesPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: policyOptions,
  requires: [STATE_STORE],
  async apply(core, options) {
    const { startPolicies } = await import('./start.js');
    startPolicies(core, options);
  },
});
export default policiesPlugin;
export { parseWindow, parseWindows, windowState } from './windows.js';
