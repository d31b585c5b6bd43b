// The registry plugin's start-up, loaded only when the plugin is applied (its index stays cheap to import
// for --help): one transport, credential store and client, the staleness tap and the two services.
import { PULL_CREDENTIALS, REGISTRY_CLIENT, REGISTRY_PATH, REMOTE_IMAGES, STAGES, type TidewatchCore } from '../../core/index.js';
import { CandidateVersions } from './candidate-version.js';
import { runningPlatform } from './running-platform.js';
import { Authorizer } from './auth.js';
import { RegistryClient } from './client.js';
import { CredentialStore, pullAuth } from './credentials.js';
import { defaultDockerConfigDir } from './docker-config.js';
import { imageCreated } from './image-created.js';
import type { RegistryOptionValues } from './options.js';
import { registryClientService } from './registry-service.js';
import { registryStaleness } from './staleness.js';
import { RegistryTransport } from './transport.js';

export function startRegistry(core: TidewatchCore, options: RegistryOptionValues, pluginName: string): void {
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
  // Tag policies (docs/tags.md): the global default, and the running image's platform from its runtime.
  const tags = { policy: options.tagPolicy, platformOf: runningPlatform(core) };
  core.hooks.checkStaleness.tapPromise({ name: pluginName, stage: STAGES.checkStaleness.remote }, async (target, ctx) =>
    core.watchPath(target) === REGISTRY_PATH ? registryStaleness(client, target, ctx, tags) : undefined,
  );
  // A stale answer names the version it leads to (docs/versions.md), read from the candidate without pulling.
  const versions = new CandidateVersions({ client, platformOf: tags.platformOf });
  core.hooks.review.tapPromise({ name: pluginName }, (staleness, target, ctx) => versions.review(staleness, target, ctx));
  // The cooldown gate ages images through this service, with the same connections and tokens.
  core.services.provide(REMOTE_IMAGES, { created: (reference, opts) => imageCreated(client, reference, opts) });
  core.services.provide(PULL_CREDENTIALS, { authFor: (imageRef) => pullAuth(credentials, imageRef) });
  // Signature verification reads manifests, blobs and referrers through this one (docs/signatures.md).
  core.services.provide(REGISTRY_CLIENT, registryClientService(client));
  core.onClose(() => transport.close());
}
