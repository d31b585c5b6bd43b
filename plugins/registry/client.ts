// The registry's v2 API as the staleness source and the cooldown need it: a manifest's digest (HEAD,
// GET as fallback), a manifest's body, a blob. Authorization is added per request and a 401 is
// answered once with the challenge it carries.
import type { ImageReference } from '../../core/index.js';
import { pullScope, type Authorizer } from './auth.js';
import { registryEndpoint, type RegistryEndpoint } from './endpoint.js';
import { MANIFEST_MAX_BYTES, RegistryError, header, type RegistryReply, type RegistryTransport } from './transport.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

export const MEDIA_TYPES = Object.freeze({
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
});

/**
 * Index kinds first: for a multi-arch tag the registry must answer with the index, whose digest is
 * what the engine records in RepoDigests after a pull by tag.
 */
export const MANIFEST_ACCEPT = [
  MEDIA_TYPES.dockerManifestList,
  MEDIA_TYPES.ociIndex,
  MEDIA_TYPES.dockerManifest,
  MEDIA_TYPES.ociManifest,
].join(', ');

const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-f0-9]{32,}$/;

export { RegistryError };

export interface Manifest {
  readonly digest: string;
  readonly mediaType: string;
  readonly body: Buffer;
}

export interface RegistryClientOptions {
  readonly transport: RegistryTransport;
  readonly authorizer: Authorizer;
  readonly tlsSkip: boolean;
  /** Told when a HEAD gave no digest and the digest is asked for with GET (--warn-on-head-failure). */
  readonly onHeadFailure?: (ref: ImageReference, status: number) => void;
}

function validDigest(value: string | undefined): string | undefined {
  return value !== undefined && DIGEST.test(value.trim()) ? value.trim() : undefined;
}

function sha256(body: Buffer): string {
  return `sha256:${nodeCrypto().createHash('sha256').update(body).digest('hex')}`;
}

/** `tag` or `sha256:…`, whichever names the manifest. */
function manifestReference(ref: ImageReference): string {
  const name = ref.digest ?? ref.tag;
  if (!name) throw new RegistryError(`image ${ref.registry}/${ref.repository} has neither tag nor digest`);
  return name;
}

export class RegistryClient {
  readonly #transport: RegistryTransport;
  readonly #authorizer: Authorizer;
  readonly #tlsSkip: boolean;
  readonly #onHeadFailure: ((ref: ImageReference, status: number) => void) | undefined;

  constructor(options: RegistryClientOptions) {
    this.#onHeadFailure = options.onHeadFailure;
    this.#transport = options.transport;
    this.#authorizer = options.authorizer;
    this.#tlsSkip = options.tlsSkip;
  }

  endpoint(ref: ImageReference): RegistryEndpoint {
    return registryEndpoint(ref.registry, this.#tlsSkip);
  }

  /**
   * The digest the registry serves for the tag: HEAD, then GET when HEAD gives no digest. `at` asks another
   * registry for the same repository (a Docker Hub mirror, docs/registry-mirrors.md).
   */
  async manifestDigest(ref: ImageReference, signal?: AbortSignal, at?: RegistryEndpoint): Promise<string> {
    const name = manifestReference(ref);
    const head = await this.#request(ref, 'HEAD', `manifests/${name}`, MANIFEST_ACCEPT, signal, undefined, at);
    if (head.status >= 200 && head.status < 300) {
      const digest = validDigest(header(head.headers, 'docker-content-digest'));
      if (digest) return digest;
    } else {
      this.#throwUnlessFallback(ref, head, at);
    }
    // Some registries and proxies answer HEAD without the digest header or refuse HEAD: ask with GET.
    this.#onHeadFailure?.(ref, head.status);
    return (await this.manifest(ref, name, signal, at)).digest;
  }

  /** A manifest or index by tag or digest, with its digest (the header's, else computed). */
  async manifest(ref: ImageReference, name: string, signal?: AbortSignal, at?: RegistryEndpoint): Promise<Manifest> {
    const reply = await this.#request(ref, 'GET', `manifests/${name}`, MANIFEST_ACCEPT, signal, MANIFEST_MAX_BYTES, at);
    this.#throwUnlessOk(ref, reply, `manifest ${name}`, at);
    const digest = validDigest(header(reply.headers, 'docker-content-digest')) ?? sha256(reply.body);
    let mediaType = (header(reply.headers, 'content-type') ?? '').split(';')[0]?.trim() ?? '';
    if (!mediaType || mediaType === 'application/json') {
      // Registries may label manifests loosely; the document says what it is.
      try {
        const doc = JSON.parse(reply.body.toString('utf8')) as { mediaType?: unknown };
        if (typeof doc.mediaType === 'string') mediaType = doc.mediaType;
      } catch {
        // Left as labelled; the caller decides whether it can use it.
      }
    }
    return { digest, mediaType, body: reply.body };
  }

  /** A blob (an image config), following the registry's redirect to its storage. */
  async blob(ref: ImageReference, digest: string, signal?: AbortSignal, maxBytes = 4 * MANIFEST_MAX_BYTES, at?: RegistryEndpoint): Promise<Buffer> {
    const reply = await this.#request(ref, 'GET', `blobs/${digest}`, '*/*', signal, maxBytes, at);
    this.#throwUnlessOk(ref, reply, `blob ${digest}`, at);
    return reply.body;
  }

  /** One GET of `/v2/<repository>/<path>`, authorized as the checks are, the body bounded to `maxBytes`. */
  get(ref: ImageReference, path: string, accept: string, maxBytes: number, signal?: AbortSignal): Promise<RegistryReply> {
    return this.#request(ref, 'GET', path, accept, signal, maxBytes);
  }

  /**
   * One page of the repository's tag list, `query` being `n=1000` or what the registry's `Link` named
   * (tags/list.ts walks the pages); authorised, limited and rate-limited as every request.
   */
  async tagListPage(ref: ImageReference, query: string, signal?: AbortSignal, maxBytes = 4 * MANIFEST_MAX_BYTES): Promise<RegistryReply> {
    const reply = await this.#request(ref, 'GET', `tags/list?${query}`, 'application/json', signal, maxBytes);
    this.#throwUnlessOk(ref, reply, 'tag list');
    return reply;
  }

  async #request(
    ref: ImageReference,
    method: 'GET' | 'HEAD',
    path: string,
    accept: string,
    signal?: AbortSignal,
    maxBodyBytes?: number,
    at?: RegistryEndpoint,
  ): Promise<RegistryReply> {
    const endpoint = at ?? this.endpoint(ref);
    const scope = pullScope(ref.repository);
    const url = new URL(`/v2/${ref.repository}/${path}`, endpoint.baseUrl);
    const send = (authorization: string | undefined) =>
      this.#transport.send({
        registry: endpoint.registry,
        url,
        method,
        headers: { accept, ...(authorization ? { authorization } : {}) },
        ...(signal ? { signal } : {}),
        ...(maxBodyBytes !== undefined ? { maxBodyBytes } : {}),
      });
    const authorization = await this.#authorizer.authorize(endpoint, scope, signal);
    const reply = await send(authorization);
    if (reply.status !== 401) return reply;
    const retry = await this.#authorizer.reauthorize(endpoint, scope, reply, authorization, signal);
    if (retry === undefined) throw new RegistryError(await this.#authorizer.describeRefusal(endpoint), 401);
    const second = await send(retry);
    if (second.status === 401) throw new RegistryError(await this.#authorizer.describeRefusal(endpoint), 401);
    return second;
  }

  #throwUnlessFallback(ref: ImageReference, reply: RegistryReply, at?: RegistryEndpoint): void {
    if (reply.status === 404) throw this.#notFound(ref, at);
  }

  #throwUnlessOk(ref: ImageReference, reply: RegistryReply, what: string, at?: RegistryEndpoint): void {
    if (reply.status >= 200 && reply.status < 300) return;
    const registry = at?.registry ?? ref.registry;
    if (reply.status === 404) throw what.startsWith('manifest') ? this.#notFound(ref, at) : new RegistryError(`${what} of ${ref.repository} not found on ${registry}`, 404);
    throw new RegistryError(`${registry} answered ${reply.status} for ${what} of ${ref.repository}`, reply.status);
  }

  #notFound(ref: ImageReference, at?: RegistryEndpoint): RegistryError {
    return new RegistryError(`manifest ${manifestReference(ref)} of ${ref.repository} not found on ${at?.registry ?? ref.registry}`, 404);
  }
}

