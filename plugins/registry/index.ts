// The registry staleness source: the default answer for every target no earlier source claimed
// (no-pull and git tap before it). One manifest request per distinct image reference per run, no pull.
import { REMOTE_IMAGES, provideService, type TidewatchCore, type TidewatchPlugin } from '../../core/index.js';
import { Authorizer } from './auth.js';
import { RegistryClient } from './client.js';
import { CredentialStore } from './credentials.js';
import { defaultDockerConfigDir } from './docker-config.js';
import { imageCreated } from './image-created.js';
import { registryOptionsSchema, type RegistryPluginOptions } from './options.js';
import { registryStaleness } from './staleness.js';
import { RegistryTransport } from './transport.js';

export const PLUGIN_NAME = 'registry';

export const registryPlugin: TidewatchPlugin<RegistryPluginOptions> = {
  name: PLUGIN_NAME,
  optionsSchema: registryOptionsSchema,
  apply(core: TidewatchCore, options: RegistryPluginOptions) {
    const tlsSkip = options.tlsSkip ?? false;
    const transport = new RegistryTransport({
      concurrency: options.concurrency ?? 20,
      timeoutMs: options.requestTimeoutMs ?? 30_000,
      tlsSkip,
      rateLimits: {
        maxWaitMs: options.rateLimitMaxWaitMs ?? 30_000,
        maxRetries: options.rateLimitRetries ?? 4,
      },
      onRequest: (event) => core.emit('registry_request', event),
    });
    const credentials = new CredentialStore({
      dockerConfigDir: options.dockerConfigDir ?? defaultDockerConfigDir(),
      ...(options.repoUser !== undefined ? { repoUser: options.repoUser } : {}),
      ...(options.repoPass !== undefined ? { repoPass: options.repoPass } : {}),
    });
    const authorizer = new Authorizer(transport, credentials, tlsSkip);
    const client = new RegistryClient({ transport, authorizer, tlsSkip });
    core.hooks.checkStaleness.tapPromise(PLUGIN_NAME, (target, ctx) => registryStaleness(client, target, ctx));
    // The cooldown gate ages images through this service, with the same connections and tokens.
    provideService(core, REMOTE_IMAGES, { created: (reference, opts) => imageCreated(client, reference, opts) });
    core.onClose(() => transport.close());
  },
};

export type { RegistryPluginOptions } from './options.js';
export { registryAuthFor } from './credentials.js';
export type { CredentialOptions, RegistryAuthConfig } from './credentials.js';
