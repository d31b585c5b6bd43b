// The docker runtime's contract with other plugins (docs/plugins.md#contracts): its local image store (what
// no-pull and the tag policies' platform check read), the Engine connections another runtime (Swarm) shares,
// and each engine's registry mirrors. Keys and types live here, with the plugin that provides them, and reach
// other plugins and third parties through the contracts entry (contracts/index.ts), never by importing this plugin.
import { defineService, type ServiceKey } from '../../core/index.js';

/** The runtime's local image store: what no-pull compares against. Provided by the docker runtime. */
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
