// Discovery: list the containers in the watched states, inspect each with its image (bounded, one image
// inspect per distinct image), and build Targets with their dependencies and the own-container flag.
import { setMaxListeners } from 'node:events';
import Docker from 'dockerode';
import { isSelfLabelled, mapBounded, type Target } from '../../core/index.js';
import { containerDirectory, dependenciesOf, type DependencyFacts } from './dependencies.js';
import { isNotFound } from './engine-errors.js';
import { containerIdFromHostname } from './self-container.js';
import { containerName, toTarget } from './target.js';

export interface DiscoveryOptions {
  readonly includeStopped: boolean;
  readonly includeRestarting: boolean;
  readonly useComposeDependsOn: boolean;
  readonly inspectConcurrency: number;
  readonly signal?: AbortSignal;
}

/** The Engine's status filter: running, plus created/exited and restarting on request; paused never. */
export function statusFilter(options: Pick<DiscoveryOptions, 'includeStopped' | 'includeRestarting'>): string[] {
  const statuses = ['running'];
  if (options.includeStopped) statuses.push('created', 'exited');
  if (options.includeRestarting) statuses.push('restarting');
  return statuses;
}

export function dependencyFacts(container: Docker.ContainerInspectInfo): DependencyFacts {
  return {
    id: container.Id,
    name: containerName(container.Name),
    labels: container.Config.Labels ?? {},
    links: container.HostConfig.Links ?? [],
    networkMode: container.HostConfig.NetworkMode ?? '',
  };
}

async function inspectOrSkip(docker: Docker, id: string, signal?: AbortSignal) {
  try {
    return await docker.getContainer(id).inspect({ abortSignal: signal });
  } catch (err) {
    // Removed between the list and the inspect: not a target any more.
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export interface Discovery {
  readonly targets: Target[];
  /** This process's container id when it runs in one the engine listed. */
  readonly ownId: string | undefined;
}

/**
 * A signal for the discovery's requests that follows the run's. docker-modem adds an abort listener per
 * request; on a signal of our own that many listeners are expected, on the run's they would warn.
 */
function requestSignal(signal: AbortSignal | undefined): { signal: AbortSignal | undefined; done: () => void } {
  if (!signal) return { signal: undefined, done: () => undefined };
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const abort = () => controller.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return { signal: controller.signal, done: () => signal.removeEventListener('abort', abort) };
}

export async function discoverContainers(
  docker: Docker,
  options: DiscoveryOptions,
  knownOwnId: string | undefined,
): Promise<Discovery> {
  const { signal, done } = requestSignal(options.signal);
  try {
    return await discover(docker, options, signal, knownOwnId);
  } finally {
    done();
  }
}

async function discover(
  docker: Docker,
  options: DiscoveryOptions,
  signal: AbortSignal | undefined,
  knownOwnId: string | undefined,
): Promise<Discovery> {
  const listed = await docker.listContainers({ all: true, filters: { status: statusFilter(options) }, abortSignal: signal });
  const inspected = (
    await mapBounded(listed, options.inspectConcurrency, (entry) => inspectOrSkip(docker, entry.Id, signal))
  ).filter((c): c is Docker.ContainerInspectInfo => c !== undefined);

  const images = new Map<string, Promise<Docker.ImageInspectInfo | undefined>>();
  const imageOf = (id: string) => {
    let pending = images.get(id);
    if (!pending) {
      pending = docker
        .getImage(id)
        // Image inspect takes no abort signal (dockerode would send it as a query parameter).
        .inspect()
        .catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        });
      images.set(id, pending);
    }
    return pending;
  };
  const withImages = await mapBounded(inspected, options.inspectConcurrency, async (container) => ({
    container,
    image: await imageOf(container.Image),
  }));

  const ownId = knownOwnId ?? containerIdFromHostname(inspected.map((c) => c.Id));
  const facts = inspected.map(dependencyFacts);
  const directory = containerDirectory(facts);
  const targets = withImages.map(({ container, image }, index) =>
    toTarget({
      container,
      image,
      dependsOn: dependenciesOf(facts[index] as DependencyFacts, directory, options),
      isSelf: container.Id === ownId || isSelfLabelled(container.Config.Labels ?? {}),
    }),
  );
  return { targets, ownId };
}
