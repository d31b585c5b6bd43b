// What the plugin's parts share: the Engine client, the resolved options, the logger, and two facts
// learned once per process (the Engine's API version, Tidewatch's own container id).
import { existsSync } from 'node:fs';
import type { EngineClient } from './engine-client.js';
import type { Logger } from '../../core/index.js';
import type { ResolvedDockerOptions } from './options.js';

export interface DockerRuntime {
  readonly docker: EngineClient;
  readonly options: ResolvedDockerOptions;
  readonly logger: Logger;
  /** `major.minor` of the API in use (the pinned one, else what the Engine speaks). */
  apiVersion(): Promise<string>;
  /** This process's container id, when it runs in a container the Engine knows. */
  ownId(): string | undefined;
}

export function createRuntime(
  docker: EngineClient,
  options: ResolvedDockerOptions,
  logger: Logger,
  ownId: () => string | undefined,
): DockerRuntime {
  let version: Promise<string> | undefined;
  return {
    docker,
    options,
    logger,
    ownId,
    apiVersion() {
      version ??= options.apiVersion
        ? Promise.resolve(options.apiVersion.replace(/^v/, ''))
        : docker.version().then((v) => v.ApiVersion);
      // A failed probe is retried next time rather than remembered.
      version.catch(() => (version = undefined));
      return version;
    },
  };
}

/** Docker creates /.dockerenv in every container: the own-container id is then expected to be known. */
export function runsInContainer(): boolean {
  return existsSync('/.dockerenv');
}
