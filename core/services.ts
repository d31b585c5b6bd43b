// Typed services plugins offer one another through the core, so a plugin can use what another provides
// without importing it (plugins import only the core): the runtime knows its local images, the registry
// source can age an image and holds the pull credentials. A key is a name plus the type of what it holds.
// Each key has one provider: a second one is an error, never a silent replacement; a plugin that lists a
// key in `requires` fails start-up when nothing provides it (docs/plugins.md#services).
import { errors } from './errors.js';
import type { ContainerKey, RollbackOutcome, StateStore } from './state.js';
import type { Actor } from './types.js';

/** A typed key: `defineService<LocalImages>('local-images')`. */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set; carries `T` so provide and get agree on the type. */
  readonly __type?: (value: T) => T;
}

export function defineService<T>(name: string): ServiceKey<T> {
  return Object.freeze({ name });
}

/** The services of one core, as plugins see them (`core.services`). */
export interface Services {
  /** Offers `service` under `key`; throws TW_ERR_SERVICE_CONFLICT when another plugin already did. */
  provide<T>(key: ServiceKey<T>, service: T): void;
  /** The service, or undefined when no plugin provides it. */
  get<T>(key: ServiceKey<T>): T | undefined;
  /** The service; throws TW_ERR_SERVICE_MISSING naming the key when no plugin provides it. */
  require<T>(key: ServiceKey<T>): T;
}

export class ServiceRegistry implements Services {
  readonly #services = new Map<string, { provider: string; service: unknown }>();
  /** The plugin being applied: providers are recorded under its name. */
  current = 'embedder';

  provide<T>(key: ServiceKey<T>, service: T): void {
    const existing = this.#services.get(key.name);
    if (existing) throw errors.serviceConflict(key.name, existing.provider, this.current);
    this.#services.set(key.name, { provider: this.current, service });
  }

  get<T>(key: ServiceKey<T>): T | undefined {
    return this.#services.get(key.name)?.service as T | undefined;
  }

  require<T>(key: ServiceKey<T>): T {
    const entry = this.#services.get(key.name);
    if (!entry) throw errors.serviceMissing(key.name, this.current);
    return entry.service as T;
  }

  has(key: ServiceKey<unknown>): boolean {
    return this.#services.has(key.name);
  }
}

/** The runtime's local image store: what no-pull compares against. Provided by a runtime plugin. */
/** A local image as LOCAL_IMAGES reports it. */
export interface LocalImage {
  readonly id: string;
  /** `os/architecture[/variant]` of the image, when the runtime knows it (the tag policies' platform check, docs/tags.md). */
  readonly platform?: string;
}

export interface LocalImages {
  /**
   * The local image a reference (`repo:tag`) names now, or undefined when there is none; `host` is the
   * target's engine when the runtime has several (docs/hosts.md), its first engine by default.
   */
  inspectImage(reference: string, signal?: AbortSignal, host?: string): Promise<LocalImage | undefined>;
}
export const LOCAL_IMAGES: ServiceKey<LocalImages> = defineService<LocalImages>('local-images');

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

/** One Engine API call's parts besides method and path. */
export interface EngineRequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** One Docker Engine API connection a runtime plugin holds. */
export interface EngineApi {
  /** The engine's name in records and filters: its configured host, e.g. `unix:///var/run/docker.sock`. */
  readonly host: string;
  /**
   * One Engine API call, the path without the version prefix (`/services`): JSON in and out. Rejects with an
   * Error whose `statusCode` is the engine's HTTP status and whose message is the engine's own.
   */
  request<T>(method: string, path: string, options?: EngineRequestOptions): Promise<T>;
}

/**
 * The Docker Engines the docker runtime plugin is connected to, so another runtime (Swarm) reaches the same
 * engines with the same connection settings (docs/plugins.md#services).
 */
export interface DockerEngines {
  list(): readonly EngineApi[];
}
export const DOCKER_ENGINES: ServiceKey<DockerEngines> = defineService<DockerEngines>('docker-engines');

/** The one state store (docs/state.md): last checks, history, audit trail, holds. Provided by the state plugin. */
export const STATE_STORE: ServiceKey<StateStore> = defineService<StateStore>('state-store');

/** Rollback on demand and holds (docs/state.md#rollback-on-demand). Provided by the state plugin. */
export interface Rollbacks {
  /** Puts the container back on the image it ran before its last update, as a targeted update run. */
  rollback(
    key: ContainerKey,
    options?: { trigger?: string; actor?: Actor; signal?: AbortSignal; runId?: string; restore?: 'volumes' },
  ): Promise<RollbackOutcome>;
  /**
   * Lifts a hold and forgets a failed candidate; false when the container had neither. A release that lifted
   * something is an audit entry (`release`) naming `actor` (docs/people.md).
   */
  release(key: ContainerKey, actor?: Actor): Promise<boolean>;
}
export const ROLLBACKS: ServiceKey<Rollbacks> = defineService<Rollbacks>('rollbacks');

/**
 * The self-update hand-over of the data directory's lock (docs/state.md#one-process-per-data-directory):
 * the runtime hands the lock over just before it starts its own successor, which shares the data directory
 * and takes the lock at its start, and takes it back when it removes that successor again. Provided by the
 * state plugin when a --data-dir is set.
 */
export interface DataDirHandover {
  /** Saves the state and releases the lock. */
  handOver(): Promise<void>;
  /** Takes the lock back after the successor was removed (a no-op while it is held). */
  takeBack(): Promise<void>;
}
export const DATA_DIR_HANDOVER: ServiceKey<DataDirHandover> = defineService<DataDirHandover>('data-dir-handover');

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

/**
 * The registry mirrors an engine pulls Docker Hub images through (its daemon's `registry-mirrors`, `GET /info`
 * RegistryConfig.Mirrors), so that the registry source asks where the engine pulls from
 * (docs/registry-mirrors.md). Provided by the docker runtime, which reads each engine's settings.
 */
export interface RegistryMirrors {
  /**
   * The mirror URLs (`https://mirror.example`, `http://127.0.0.1:5000`) of the target's engine (`host`, as
   * `Target.host`; the first engine when absent), in the engine's order; empty when it has none or they cannot
   * be read. Never rejects.
   */
  mirrorsFor(host?: string): Promise<readonly string[]>;
}
export const REGISTRY_MIRRORS: ServiceKey<RegistryMirrors> = defineService<RegistryMirrors>('registry-mirrors');

/**
 * The in-toto attestations attached to a candidate digest (`cosign attest`), verified under the signature options'
 * keys and keyless identity; provided by the signatures plugin, read by the attestations gate (docs/attestations.md).
 * Nothing is cached here: the reader keeps what it derives, by digest.
 */
export interface VerifiedAttestation {
  readonly predicateType: string;
  /** The statement's predicate as parsed (untrusted in shape: the reader checks every field it uses). */
  readonly predicate: unknown;
  /** Who signed it: `key ecdsa-p256 0123abcd… (Sigstore bundle)`, or the keyless identity. */
  readonly signer: string;
}

export interface AttestationRead {
  readonly verified: readonly VerifiedAttestation[];
  /** Why each attestation that was found but not accepted was refused (bounded, unsigned, another subject…). */
  readonly rejected: readonly string[];
}

export interface AttestationVerifier {
  read(image: string, digest: string, predicateTypes: readonly string[], signal?: AbortSignal): Promise<AttestationRead>;
}

export const ATTESTATION_VERIFIER: ServiceKey<AttestationVerifier> = defineService<AttestationVerifier>('attestation-verifier');
