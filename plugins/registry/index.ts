// The registry staleness source: answers for every target on the `registry` watch path (the default)
// that no local source answered first. One manifest request per distinct image reference per run, no pull.
// It provides REMOTE_IMAGES (image ages, for the cooldown) and PULL_CREDENTIALS (so the runtime's pulls
// authenticate exactly as the checks do). The client loads with its first use.
import { definePlugin, REGISTRY_PATH, STAGES } from '../../core/index.js';
import { firstUse } from '../../contracts/shared/first-use.js';
import { PULL_CREDENTIALS, REGISTRY_CLIENT, REMOTE_IMAGES } from './contracts.js';
import { registryOptions } from './options.js';

export const PLUGIN_NAME = 'registry';

export const registryPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: registryOptions,
  apply(core, options) {
    // The client and everything behind it (start.ts) load with the first check, or the first service call
    // (docs/plugins.md#loading-code-at-first-use): an idle service asks no registry.
    const registry = firstUse(async () => (await import('./start.js')).makeRegistry(core, options));
    core.hooks.checkStaleness.tapPromise({ name: PLUGIN_NAME, stage: STAGES.checkStaleness.remote }, async (target, ctx) =>
      core.watchPath(target) === REGISTRY_PATH ? (await registry()).staleness(target, ctx) : undefined,
    );
    // A stale answer names the version it leads to (docs/versions.md).
    core.hooks.review.tapPromise({ name: PLUGIN_NAME, stage: STAGES.review.describe }, async (staleness, target, ctx) =>
      (await registry()).review(staleness, target, ctx),
    );
    core.services.provide(REMOTE_IMAGES, { created: async (reference, opts) => (await registry()).remoteImages.created(reference, opts) });
    core.services.provide(PULL_CREDENTIALS, { authFor: async (imageRef) => (await registry()).pullCredentials.authFor(imageRef) });
    core.services.provide(REGISTRY_CLIENT, {
      manifest: async (image, reference, accept, opts) => (await registry()).client.manifest(image, reference, accept, opts),
      blob: async (image, digest, opts) => (await registry()).client.blob(image, digest, opts),
      referrers: async (image, digest, opts) => (await registry()).client.referrers(image, digest, opts),
    });
    core.onClose(() => registry.loaded()?.close());
  },
});

export type { RegistryPluginOptions } from './options.js';
