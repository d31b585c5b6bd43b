// The registry staleness source: answers for every target on the `registry` watch path (the default)
// that no local source answered first. One manifest request per distinct image reference per run, no pull.
// It provides REMOTE_IMAGES (image ages, for the cooldown) and PULL_CREDENTIALS (so the runtime's pulls
// authenticate exactly as the checks do).
import {
  PULL_CREDENTIALS,
  REGISTRY_PATH,
  REMOTE_IMAGES,
  STAGES,
  definePlugin,
} from '../../core/index.js';
import { registryOptions } from './options.js';

export const PLUGIN_NAME = 'registry';

export const registryPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: registryOptions,
  async apply(core, options) {
    // The HTTP client and the rest load only when the plugin is applied (docs/performance.md#footprint).
    const [{ Authorizer }, { RegistryClient }, { CredentialStore, pullAuth }, { defaultDockerConfigDir }, { imageCreated }, { registryStaleness }, { RegistryTransport }] =
      await Promise.all([
        import('./auth.js'),
        import('./client.js'),
        import('./credentials.js'),
        import('./docker-config.js'),
        import('./image-created.js'),
        import('./staleness.js'),
        import('./transport.js'),
      ]);
    const transport = new RegistryTransport({
      concurrency: options.concurrency,
      timeoutMs: options.requestTimeoutMs,
      tlsSkip: options.tlsSkip,
      rateLimits: { maxWaitMs: options.rateLimitMaxWaitMs, maxRetries: options.rateLimitRetries },
      onRequest: (event) => core.emit('registry_request', event),
    });
    const credentials = new CredentialStore({
      dockerConfigDir: options.dockerConfigDir || defaultDockerConfigDir(),
      ...(options.repoUser ? { repoUser: options.repoUser, repoPass: options.repoPass } : {}),
    });
    const authorizer = new Authorizer(transport, credentials, options.tlsSkip);
    const client = new RegistryClient({ transport, authorizer, tlsSkip: options.tlsSkip });
    core.hooks.checkStaleness.tapPromise({ name: PLUGIN_NAME, stage: STAGES.checkStaleness.remote }, async (target, ctx) =>
      core.watchPath(target) === REGISTRY_PATH ? registryStaleness(client, target, ctx) : undefined,
    );
    // The cooldown gate ages images through this service, with the same connections and tokens.
    core.services.provide(REMOTE_IMAGES, { created: (reference, opts) => imageCreated(client, reference, opts) });
    core.services.provide(PULL_CREDENTIALS, { authFor: (imageRef) => pullAuth(credentials, imageRef) });
    core.onClose(() => transport.close());
  },
});

export type { RegistryPluginOptions } from './options.js';
export { registryAuthFor } from './credentials.js';
export type { CredentialOptions, RegistryAuthConfig } from './credentials.js';
