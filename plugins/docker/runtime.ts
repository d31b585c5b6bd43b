// What the plugin's parts share: the Engine client, the resolved options, the logger, and facts learned
// once per process (the Engine's API version and kind, Tidewatch's own container id).
import { existsSync } from 'node:fs';
import type { EngineClient } from './engine-client.js';
import type { Logger } from '../../core/index.js';
import { NamespaceModes } from './namespaces.js';
import type { ResolvedDockerOptions } from './options.js';
import { isPodmanVersion, type EngineVersion } from './podman.js';

export interface DockerRuntime {
  readonly docker: EngineClient;
  readonly options: ResolvedDockerOptions;
  readonly logger: Logger;
  /** `major.minor` of the API in use (the pinned one, else what the Engine speaks). */
  apiVersion(): Promise<string>;
  /** True when the engine is Podman's Docker-compatible API (docs/podman.md). */
  isPodman(): Promise<boolean>;
  /** This process's container id, when it runs in a container the Engine knows. */
  ownId(): string | undefined;
  /** The containers' IPC and PID modes, inspected once per container (namespaces.ts). */
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
  return {
    docker,
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
