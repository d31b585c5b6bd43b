// What the plugin's parts share: the Engine client, the resolved options, the logger, and facts learned
// once per process (the Engine's API version, kind and image store, Tidewatch's own container id).
import { existsSync } from 'node:fs';
import type { EngineClient } from './engine/client.js';
import { errorMessage, type Logger } from '../../core/index.js';
import { imageStoreOf, type ImageStore } from './image/store.js';
import { mirrorsReader } from './engine/registry-mirrors.js';
import { NamespaceModes } from './replace/namespaces.js';
import type { ResolvedDockerOptions } from './options.js';
import { isPodmanVersion, type EngineVersion } from './engine/podman.js';

export interface DockerRuntime {
  readonly docker: EngineClient;
  readonly options: ResolvedDockerOptions;
  readonly logger: Logger;
  /** `major.minor` of the API in use (the pinned one, else what the Engine speaks). */
  apiVersion(): Promise<string>;
  /** True when the engine is Podman's Docker-compatible API (docs/podman.md). */
  isPodman(): Promise<boolean>;
  /**
   * The engine's image store, read from `/info` once per process (docs/engines.md); `unknown` while it cannot
   * be read, which only costs check errors where a digest is missing, never a wrong answer. Podman: `classic`.
   */
  imageStore(): Promise<ImageStore>;
  /** The engine's registry mirrors for Docker Hub (`/info`, refreshed every few minutes; engine/registry-mirrors.ts). */
  registryMirrors(): Promise<readonly string[]>;
  /** This process's container id, when it runs in a container the Engine knows. */
  ownId(): string | undefined;
  /** The containers' IPC and PID modes, inspected once per container (replace/namespaces.ts). */
  readonly namespaceModes: NamespaceModes;
}

export function createRuntime(
  docker: EngineClient,
  options: ResolvedDockerOptions,
  logger: Logger,
  ownId: () => string | undefined,
): DockerRuntime {
  let version: Promise<EngineVersion> | undefined;
  // One `GET /version` per process; a failed probe is retried next time rather than remembered.
  const engineVersion = (): Promise<EngineVersion> => {
    version ??= (docker.version() as Promise<EngineVersion>).catch((err: unknown) => {
      version = undefined;
      throw err;
    });
    return version;
  };
  // One `GET /info` serves the image store and the mirrors; a failed read is retried, an old one re-read on demand.
  let info: { readonly at: number; readonly read: ReturnType<EngineClient['info']> } | undefined;
  const engineInfo = (maxAgeMs = Number.POSITIVE_INFINITY): ReturnType<EngineClient['info']> => {
    if (!info || Date.now() - info.at > maxAgeMs) {
      const entry = {
        at: Date.now(),
        read: docker.info().catch((err: unknown) => {
          if (info === entry) info = undefined;
          throw err;
        }),
      };
      info = entry;
    }
    return info.read;
  };
  let store: ImageStore | undefined;
  let storeWarned = false;
  const imageStore = async (): Promise<ImageStore> => {
    if (store) return store;
    try {
      store = isPodmanVersion(await engineVersion()) ? 'classic' : imageStoreOf(await engineInfo());
      return store;
    } catch (err) {
      // Tried again next run; said once: a socket proxy without INFO=1 refuses it for good (docs/security.md).
      if (!storeWarned) logger.warn({ err: errorMessage(err) }, 'cannot read the engine\'s image store (GET /info)');
      storeWarned = true;
      return 'unknown';
    }
  };
  return {
    docker,
    imageStore,
    registryMirrors: mirrorsReader(engineInfo, logger, docker.host),
    options,
    logger,
    ownId,
    namespaceModes: new NamespaceModes(),
    async apiVersion() {
      if (options.apiVersion) return options.apiVersion.replace(/^v/, '');
      return (await engineVersion()).ApiVersion ?? '';
    },
    async isPodman() {
      return isPodmanVersion(await engineVersion());
    },
  };
}

/**
 * Docker creates /.dockerenv in every container, Podman /run/.containerenv (docs/podman.md): the
 * own-container id is then expected to be known.
 */
export function runsInContainer(): boolean {
  return existsSync('/.dockerenv') || existsSync('/run/.containerenv');
}
