// What the plugin's parts share: the Engine client, the resolved options, the logger, and facts learned
// once per process (the engine's profile: its kind, versions and image store, engine/profile.ts; Tidewatch's own
// container id).
import type { EngineClient } from './engine/client.js';
import { errorMessage, type Logger } from '../../core/index.js';
import { mirrorsReader } from './engine/registry-mirrors.js';
import { NamespaceModes } from './replace/namespaces.js';
import type { ResolvedDockerOptions } from './options.js';
import { engineProfile, isPodmanVersion, type EngineProfile, type EngineVersion } from './engine/profile.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { existsSync } = process.getBuiltinModule('node:fs');

/** How soon a profile made without the engine's `/info` is made again. */
const PROFILE_RETRY_MS = 60_000;

export interface DockerRuntime {
  readonly docker: EngineClient;
  readonly options: ResolvedDockerOptions;
  readonly logger: Logger;
  /**
   * The engine's profile (engine/profile.ts, docs/engines.md#the-engine-profile): every difference between engines
   * answered by name. Read once per process; while `/info` cannot be read its store is `unknown` and it is read
   * again next time (a socket proxy without INFO=1 refuses it for good: docs/security.md).
   */
  profile(): Promise<EngineProfile>;
  /** The profile when it is made and needs no new read: what `profile()` would answer without asking the engine. */
  known(): EngineProfile | undefined;
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
  // Made once; while `/info` cannot be read the profile says `unknown` for the store and is made again at most
  // once a minute (each replacement asks the profile: a refused `/info` is not asked again for each).
  let known: { readonly profile: EngineProfile; readonly at: number } | undefined;
  let infoWarned = false;
  const current = (): EngineProfile | undefined =>
    known && (known.profile.imageStore !== 'unknown' || Date.now() - known.at < PROFILE_RETRY_MS) ? known.profile : undefined;
  const profile = async (): Promise<EngineProfile> => {
    const made = current();
    if (made) return made;
    const reported = await engineVersion();
    let engineFacts: Awaited<ReturnType<EngineClient['info']>> | undefined;
    // Podman's store is always classic: its /info is not needed for the profile.
    if (!isPodmanVersion(reported)) {
      try {
        engineFacts = await engineInfo();
      } catch (err) {
        // Said once: a socket proxy without INFO=1 refuses it for good (docs/security.md).
        if (!infoWarned) logger.warn({ err: errorMessage(err) }, 'cannot read the engine\'s image store (GET /info)');
        infoWarned = true;
      }
    }
    const fresh = engineProfile({ version: reported, info: engineFacts, pinnedApiVersion: options.apiVersion });
    known = { profile: fresh, at: Date.now() };
    return fresh;
  };
  return {
    docker,
    profile,
    known: current,
    registryMirrors: mirrorsReader(engineInfo, logger, docker.host),
    options,
    logger,
    ownId,
    namespaceModes: new NamespaceModes(),
  };
}

/**
 * Docker creates /.dockerenv in every container, Podman /run/.containerenv (docs/podman.md): the
 * own-container id is then expected to be known.
 */
export function runsInContainer(): boolean {
  return existsSync('/.dockerenv') || existsSync('/run/.containerenv');
}
