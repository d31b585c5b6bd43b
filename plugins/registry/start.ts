// The registry source's parts, loaded at their first use (index.ts, docs/plugins.md#loading-code-at-first-use):
// one transport, credential store and client behind the staleness tap, the review tap and the three services.
import type { ImageReference, RunContext, Staleness, Target, TidewatchCore } from '../../core/index.js';
import type { PullCredentials, RegistryClientService, RemoteImages } from './contracts.js';
import { REGISTRY_MIRRORS } from '../../contracts/index.js';
import { CandidateVersions } from './candidate-version.js';
import { runningPlatform } from './tags/running-platform.js';
import { Authorizer } from './auth.js';
import { RegistryClient } from './client.js';
import { CredentialStore, pullAuth } from './credentials.js';
import { defaultDockerConfigDir } from './docker-config.js';
import { imageCreated } from './image-created.js';
import { readEndpoints } from './mirrors.js';
import type { RegistryOptionValues } from './options.js';
import { registryClientService } from './registry-service.js';
import { registryStaleness } from './staleness.js';
import { RegistryTransport } from './transport.js';

/** The fork's spelling of `--registry-tls-min-version` → Node's. */
const NODE_TLS_VERSIONS = { 'TLS1.0': 'TLSv1', 'TLS1.1': 'TLSv1.1', 'TLS1.2': 'TLSv1.2', 'TLS1.3': 'TLSv1.3' } as const;

/**
 * `--warn-on-head-failure`: a HEAD without a digest makes the check ask with GET, which Docker Hub counts as a
 * pull against its limit; `auto` warns for Docker Hub only, as the fork does, and logs the others at debug.
 */
export function headFailureLogger(core: Pick<TidewatchCore, 'logger'>, mode: 'always' | 'never' | 'auto'): (ref: ImageReference, status: number) => void {
  return (ref, status) => {
    const warn = mode === 'always' || (mode === 'auto' && ref.registry === 'docker.io');
    const fields = { registry: ref.registry, repository: ref.repository, status };
    if (warn) core.logger.warn(fields, 'registry HEAD gave no digest: asking with GET');
    else core.logger.debug(fields, 'registry HEAD gave no digest: asking with GET');
  };
}

/** The registry source's parts, made at its first use (index.ts taps the hooks and provides the services over them). */
export interface RegistryParts {
  staleness(target: Target, ctx: RunContext): Promise<Staleness>;
  review(staleness: Staleness, target: Target, ctx: RunContext): Promise<Staleness>;
  readonly remoteImages: RemoteImages;
  readonly pullCredentials: PullCredentials;
  readonly client: RegistryClientService;
  close(): void;
}

export function makeRegistry(core: TidewatchCore, options: RegistryOptionValues): RegistryParts {
  const transport = new RegistryTransport({
    concurrency: options.concurrency,
    timeoutMs: options.requestTimeoutMs,
    tlsSkip: options.tlsSkip,
    tlsMinVersion: NODE_TLS_VERSIONS[options.tlsMinVersion],
    rateLimits: { maxWaitMs: options.rateLimitMaxWaitMs, maxRetries: options.rateLimitRetries },
    onRequest: (event) => core.emit('registry_request', event),
  });
  const credentials = new CredentialStore({
    dockerConfigDir: options.dockerConfigDir || defaultDockerConfigDir(),
    ...(options.repoUser ? { repoUser: options.repoUser, repoPass: options.repoPass } : {}),
  });
  const authorizer = new Authorizer(transport, credentials, options.tlsSkip);
  const client = new RegistryClient({
    transport,
    authorizer,
    tlsSkip: options.tlsSkip,
    onHeadFailure: headFailureLogger(core, options.warnOnHeadFailure),
  });
  // Tag policies (docs/tags.md): the global default, and the running image's platform from its runtime.
  const tags = { policy: options.tagPolicy, platformOf: runningPlatform(core) };
  // A stale answer names the version it leads to (docs/versions.md), read from the candidate without pulling.
  const versions = new CandidateVersions({
    client,
    platformOf: tags.platformOf,
    endpointsFor: (ref, target) => readEndpoints(ref, target, core.services.get(REGISTRY_MIRRORS)),
  });
  return {
    // Docker Hub references go through the engine's registry mirrors first, when a runtime lists them (docs/registry-mirrors.md).
    staleness: (target, ctx) => registryStaleness(client, target, ctx, tags, core.services.get(REGISTRY_MIRRORS)),
    review: (staleness, target, ctx) => versions.review(staleness, target, ctx),
    // The cooldown gate ages images through this service, with the same connections and tokens.
    remoteImages: { created: (reference, opts) => imageCreated(client, reference, opts) },
    pullCredentials: { authFor: (imageRef) => pullAuth(credentials, imageRef) },
    // Signature verification reads manifests, blobs and referrers through this one (docs/signatures.md).
    client: registryClientService(client),
    close: () => transport.close(),
  };
}
