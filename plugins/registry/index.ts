// The registry staleness source: answers for every target on the `registry` watch path (the default)
// that no local source answered first. One manifest request per distinct image reference per run, no pull.
// It provides REMOTE_IMAGES (image ages, for the cooldown) and PULL_CREDENTIALS (so the runtime's pulls
// authenticate exactly as the checks do). The client (undici and the rest) loads when the plugin is applied.
import { definePlugin } from '../../core/index.js';
import { registryOptions } from './options.js';

export const PLUGIN_NAME = 'registry';

export const registryPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: registryOptions,
  async apply(core, options) {
    const { startRegistry } = await import('./start.js');
    startRegistry(core, options, PLUGIN_NAME);
  },
});

export type { RegistryPluginOptions } from './options.js';
