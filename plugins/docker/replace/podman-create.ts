// A replacement's create options on an engine whose inspect shows its own defaults (the engine profile's
// `showsOwnDefaultsInInspect`: Podman's Docker-compatible API, `podman system service`). Its answers
// have the shape of Docker's, but some values are Podman's own: an inspect shows what Podman added to a
// container (environment, working directory, rlimits under their kernel names, a numeric stop signal), and
// a create given those values back either refuses them or makes them the user's. Each difference, and
// why it is handled here, is listed in docs/podman.md#differences-and-how-tidewatch-handles-them.
import { constants } from 'node:os';
import type Docker from 'dockerode';
import { shortId } from './aside-names.js';
import type { ImageDefaults, InspectedConfig } from './inspected.js';

/** The PATH Podman gives a container whose image sets none (containers.conf's default `env`). */
const PODMAN_DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

function isRootUser(user: string | undefined): boolean {
  const name = (user ?? '').split(':')[0] ?? '';
  return name === '' || name === 'root' || name === '0';
}

/**
 * Config.Env without the entries Podman adds to every container, which it adds again to the new one:
 * `container=podman`, `TERM=xterm`, `HOSTNAME=<its hostname>`, root's `HOME=/root`, and its default
 * PATH when the image has none. Copied, they would become the user's settings: a new image's own HOME
 * or PATH would then be overridden by the old defaults.
 */
export function withoutPodmanEnv(env: readonly string[], config: InspectedConfig, image: ImageDefaults | undefined): string[] {
  const imageHasPath = (image?.Env ?? []).some((entry) => entry.startsWith('PATH='));
  return env.filter(
    (entry) =>
      entry !== 'container=podman' &&
      entry !== 'TERM=xterm' &&
      entry !== `HOSTNAME=${config.Hostname}` &&
      !(entry === 'HOME=/root' && isRootUser(config.User)) &&
      !(entry === PODMAN_DEFAULT_PATH && !imageHasPath),
  );
}

/** A signal as a number (`15`, `SIGTERM`, `TERM`), or undefined when it is not one this host knows. */
export function signalNumber(signal: string | undefined): number | undefined {
  if (!signal) return undefined;
  if (/^\d+$/.test(signal)) return Number(signal);
  const name = signal.toUpperCase();
  const signals = constants.signals as Record<string, number | undefined>;
  return signals[name.startsWith('SIG') ? name : `SIG${name}`];
}

/** Podman's HostConfig.Ulimits use the kernel's names (RLIMIT_NOFILE); a create takes only Docker's (nofile). */
export function dockerUlimits(ulimits: Docker.HostConfig['Ulimits']): Docker.HostConfig['Ulimits'] {
  return ulimits?.map((limit) => ({ ...limit, Name: limit.Name?.replace(/^RLIMIT_/i, '').toLowerCase() }));
}

/**
 * Podman's values in the replacement's create options, turned back into what a user would have given:
 * the caller has already taken the image's defaults out the way it does for Docker.
 */
export function podmanCreateOptions(
  create: Docker.ContainerCreateOptions,
  container: Docker.ContainerInspectInfo,
  image: ImageDefaults | undefined,
): Docker.ContainerCreateOptions {
  const config = container.Config as InspectedConfig;
  const result: Docker.ContainerCreateOptions & { StopTimeout?: number } = { ...create };
  result.Env = withoutPodmanEnv(create.Env ?? [], config, image);
  // Podman shows "/" where the image sets no working directory; Docker shows "".
  if (result.WorkingDir === '/' && !image?.WorkingDir) delete result.WorkingDir;
  // A numeric stop signal ("15") is the image's own when it is the same signal under its name.
  const imageSignal = signalNumber(image?.StopSignal ?? 'SIGTERM');
  if (result.StopSignal !== undefined && signalNumber(result.StopSignal) === imageSignal) delete result.StopSignal;
  // A container created through the compatible API without a stop timeout shows 0 (docs/podman.md).
  if (result.StopTimeout === 0) delete result.StopTimeout;
  const hostConfig: Docker.HostConfig = { ...(create.HostConfig ?? {}) };
  if (hostConfig.Ulimits) hostConfig.Ulimits = dockerUlimits(hostConfig.Ulimits);
  // "oci" names no runtime Podman knows: it is how the compatible inspect shows Podman's default one.
  if (hostConfig.Runtime === 'oci') delete hostConfig.Runtime;
  // UTS mode "private" is Docker's default (empty), under which the hostname is the user's to keep.
  if (hostConfig.UTSMode === 'private') {
    delete hostConfig.UTSMode;
    const joined = (hostConfig.NetworkMode ?? '').startsWith('container:');
    if (!joined && config.Hostname && config.Hostname !== shortId(container.Id)) result.Hostname = config.Hostname;
  }
  result.HostConfig = hostConfig;
  return result;
}
