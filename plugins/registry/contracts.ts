// The registry plugin's contract with other plugins (docs/plugins.md#contracts): facts about an image read
// without pulling it (the cooldown gate), the pull credentials a runtime hands its engine, and bounded,
// digest-checked registry reads (signature verification, policies). Keys and types live here, with the plugin
// that provides them, and reach other plugins and third parties through the contracts entry (contracts/index.ts).
import { defineService, type ServiceKey } from '../../core/index.js';

/** Facts about an image on its registry, read without pulling it: what the cooldown gate needs. */
export interface RemoteImages {
  /**
   * The `created` time of the image config behind `reference` (a tag or a digest; an index is
   * resolved to `platform`, `os/arch[/variant]`, default the service's own), or undefined when the
   * config has none. Throws when it cannot be read.
   */
  created(reference: string, options?: { platform?: string; signal?: AbortSignal }): Promise<Date | undefined>;
}
export const REMOTE_IMAGES: ServiceKey<RemoteImages> = defineService<RemoteImages>('remote-images');

/** Credentials for one pull, in the shape the Docker Engine's X-Registry-Auth header takes. */
export interface RegistryAuth {
  readonly username?: string;
  readonly password?: string;
  readonly identitytoken?: string;
  readonly serveraddress: string;
}

/** The Engine's `X-Registry-Auth` header for `auth`: base64url of the JSON, as the Docker CLI sends it. */
export function registryAuthHeader(auth: RegistryAuth): string {
  return Buffer.from(JSON.stringify(auth)).toString('base64url');
}

/** Pull credentials, looked up exactly as the staleness checks authenticate. Without it pulls are anonymous. */
export interface PullCredentials {
  authFor(imageRef: string): Promise<RegistryAuth | undefined>;
}
export const PULL_CREDENTIALS: ServiceKey<PullCredentials> = defineService<PullCredentials>('pull-credentials');

/** One manifest, index or artifact manifest as a registry served it (untrusted: bounded, digest-checked). */
export interface RegistryDocument {
  /** `sha256:…` of `body`; when the read named a digest, the body was checked against it. */
  readonly digest: string;
  /** The content type the registry sent, or the document's own `mediaType`. */
  readonly mediaType: string;
  readonly body: Buffer;
}

/** Bounds and media types of one registry read. */
export interface RegistryReadOptions {
  /** Largest body accepted; a larger answer fails the read. */
  readonly maxBytes?: number;
  readonly signal?: AbortSignal;
}

/**
 * Registry reads for plugins other than the registry source (signature verification, docs/signatures.md),
 * made with the registry plugin's connections, credentials, bound on requests in flight and 429 handling.
 * `image` names the repository (`registry/repo`, a tag or digest in it is ignored). Whatever a registry
 * sends is untrusted: every read is bounded in bytes and a read by digest is checked against the digest.
 */
export interface RegistryClientService {
  /** A manifest by tag or digest with these Accept types; undefined when the registry answers 404. */
  manifest(image: string, reference: string, accept: readonly string[], options?: RegistryReadOptions): Promise<RegistryDocument | undefined>;
  /** A blob by digest, checked against it. */
  blob(image: string, digest: string, options?: RegistryReadOptions): Promise<Buffer>;
  /**
   * The OCI 1.1 referrers index of `digest` (`GET /v2/<name>/referrers/<digest>`), or undefined when the
   * registry has no referrers API (404): the caller falls back to the referrers tag `sha256-<hex>`.
   */
  referrers(image: string, digest: string, options?: RegistryReadOptions & { artifactType?: string }): Promise<RegistryDocument | undefined>;
}
export const REGISTRY_CLIENT: ServiceKey<RegistryClientService> = defineService<RegistryClientService>('registry-client');
