// Discovery from the container list: the list carries every fact a target needs (name, labels, image,
// image id, state, network mode; link aliases show up as names of the linked containers), so a run
// inspects only each distinct image, plus the rare container whose list entry hides its image name, and
// not even those when the engine reported no image change since the last discovery (image/facts-cache.ts).
// Targets are announced per image as soon as that image is inspected, so the run checks them while the
// other images are still being inspected (docs/performance.md#the-check-pipeline).
import { setMaxListeners } from 'node:events';
import type Docker from 'dockerode';
import type { EngineClient } from './engine/client.js';
import { mapBounded, type Target } from '../../core/index.js';
import { isSelfLabelled } from './self/labels.js';
import { containerDirectory, dependenciesOf, type DependencyFacts } from './dependencies.js';
import { isNotFound } from './engine/errors.js';
import type { NamespaceModes } from './replace/namespaces.js';
import type { ImageFactsCache } from './image/facts-cache.js';
import { knownDigests } from './image/store.js';
import type { EngineProfile } from './engine/profile.js';
import { containerIdFromHostname } from './self/container.js';
import { containerName, imageFactsOfInspect, imageFactsOfListEntry, imageNameOf, toTarget, type ContainerFacts, type ImageFacts } from './target.js';

export interface DiscoveryOptions {
  readonly includeStopped: boolean;
  readonly includeRestarting: boolean;
  readonly useComposeDependsOn: boolean;
  readonly inspectConcurrency: number;
  readonly signal?: AbortSignal;
  /**
   * The engine's profile (engine/profile.ts): whether its image ID is the pulled digest (image/store.ts). Default:
   * not. A promise is awaited while the containers are listed (the first discovery makes the profile).
   */
  readonly profile?: Pick<EngineProfile, 'keepsImageIdAsManifestDigest'> | Promise<Pick<EngineProfile, 'keepsImageIdAsManifestDigest'>>;
  /** The engine's name every target carries (docs/hosts.md). */
  readonly host?: string;
  /** The engine's rollout stage every target carries (docs/rollouts.md); absent: stage 1. */
  readonly stage?: number;
  /**
   * How many distinct images the engine's last discovery saw: from the threshold on, the image list is asked
   * for beside the container list instead of after it (a fleet's shape rarely changes between runs).
   */
  readonly imagesLastTime?: number;
  /** IMAGE_LIST_FROM unless a test says otherwise. */
  readonly imageListFrom?: number;
  /**
   * The engine's image facts from earlier discoveries, reused while its event stream is open (image/facts-cache.ts);
   * a promise, like the profile it depends on, is awaited while the containers are listed.
   */
  readonly imageFacts?: ImageFactsCache | Promise<ImageFactsCache | undefined>;
  /** The engine's IPC and PID modes (an inspect per new container): given in update runs, where dependents matter. */
  readonly namespaceModes?: NamespaceModes;
  /** Receives each image's targets as soon as they are complete (the core's `ctx.announce`). */
  readonly announce?: (targets: readonly Target[]) => void;
  /** Told this process's container once the list is read, before anything is announced. */
  readonly listed?: (own: ListedContainer | undefined) => void;
}

/**
 * From this many distinct images on, one image list answers for all of them instead of an inspect each:
 * one request in place of hundreds, on the engine as in this process. Below it the inspects win: the list
 * costs the engine as much as every image the host keeps, and each inspect lets its image's registry
 * request start at once (docs/performance.md#the-check-pipeline).
 */
export const IMAGE_LIST_FROM = 100;

/** Every task container of a Swarm service carries it: Swarm owns those, the swarm runtime updates the service (docs/swarm.md). */
export const SWARM_TASK_LABEL = 'com.docker.swarm.service.id';

/** The Engine's statuses a run watches: running, plus created/exited and restarting on request; paused never. */
export function statusFilter(options: Pick<DiscoveryOptions, 'includeStopped' | 'includeRestarting'>): string[] {
  const statuses = ['running'];
  if (options.includeStopped) statuses.push('created', 'exited');
  if (options.includeRestarting) statuses.push('restarting');
  return statuses;
}

/** One container as the list shows it, with the facts dependency parsing needs. */
export interface ListedContainer extends ContainerFacts, DependencyFacts {
  /** True when the list showed the image id for `Config.Image` (the tag moved on): only an inspect has the name. */
  readonly imageNameHidden: boolean;
}

/**
 * The list's state in Docker's words: Podman lists a container that exited under its restart policy as
 * "stopped", which Docker calls "exited" (docs/podman.md).
 */
export function dockerState(state: string): string {
  return state === 'stopped' ? 'exited' : state;
}

/** A container's own name is the one with a single segment; `/web/db` is the alias a link gave it. */
function ownName(names: readonly string[]): string {
  return containerName(names.find((n) => n.lastIndexOf('/') === 0) ?? names[0] ?? '');
}

/**
 * The list entries as containers, with each one's `HostConfig.Links` rebuilt from the link aliases in
 * the other entries' names (`/db` named also `/web/db` means web has the link `/db:/web/db`).
 */
export function listedContainers(entries: readonly Docker.ContainerInfo[]): ListedContainer[] {
  const links = new Map<string, string[]>();
  const names = entries.map((entry) => ownName(entry.Names ?? []));
  entries.forEach((entry, index) => {
    for (const alias of entry.Names ?? []) {
      const slash = alias.lastIndexOf('/');
      if (slash <= 0) continue;
      const linker = containerName(alias.slice(0, slash));
      links.set(linker, [...(links.get(linker) ?? []), `/${names[index] as string}:${alias}`]);
    }
  });
  return entries.map((entry, index) => {
    const name = names[index] as string;
    return {
      id: entry.Id,
      name,
      configImage: entry.Image,
      imageId: entry.ImageID,
      labels: entry.Labels ?? {},
      state: dockerState(entry.State),
      links: links.get(name) ?? [],
      networkMode: entry.HostConfig?.NetworkMode ?? '',
      imageNameHidden: entry.Image === entry.ImageID,
    };
  });
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
  docker: EngineClient,
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

function notFoundAsUndefined(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}

/** `Config.Image` for a container whose list entry showed only the image id; undefined once it is gone. */
async function configImageOf(docker: EngineClient, id: string, signal: AbortSignal | undefined): Promise<string | undefined> {
  const info = await docker.getContainer(id).inspect({ signal }).catch(notFoundAsUndefined);
  return info?.Config.Image;
}

async function inspectImage(docker: EngineClient, imageId: string, signal: AbortSignal | undefined): Promise<ImageFacts | undefined> {
  const info = await docker.getImage(imageId).inspect({ signal }).catch(notFoundAsUndefined);
  return info && imageFactsOfInspect(info);
}

async function imagesById(docker: EngineClient, signal: AbortSignal | undefined): Promise<Map<string, ImageFacts>> {
  const entries = await docker.listImages({ signal });
  return new Map(entries.map((entry) => [entry.Id, imageFactsOfListEntry(entry)]));
}

async function discover(
  docker: EngineClient,
  options: DiscoveryOptions,
  signal: AbortSignal | undefined,
  knownOwnId: string | undefined,
): Promise<Discovery> {
  // Every container, whatever its state: link aliases of containers outside the watched states still
  // name the links of those inside (an inspect would show them too).
  const listFrom = options.imageListFrom ?? IMAGE_LIST_FROM;
  const list = () => docker.listContainers({ all: true, signal });
  // While the profile is still to come (the first discovery makes it), the containers are listed meanwhile.
  let listing = options.imageFacts instanceof Promise || options.profile instanceof Promise ? list() : undefined;
  // The profile failed first: its error is the discovery's, never an unhandled rejection of the list.
  listing?.catch(() => undefined);
  const [imageFacts, profile] = await Promise.all([options.imageFacts, options.profile]);
  // The stream replays a few seconds (image/facts-cache.ts): what changed while the profile was asked is not missed.
  imageFacts?.watch();
  // Asked for ahead only when the cache will not answer for most of the images seen last time.
  const uncachedLastTime = (options.imagesLastTime ?? 0) - (imageFacts?.reusable ?? 0);
  const imagesAhead = uncachedLastTime >= listFrom ? imagesById(docker, signal) : undefined;
  // Not wanted after all (the fleet shrank), or the container list failed first: never an unhandled rejection.
  imagesAhead?.catch(() => undefined);
  const entries = await (listing ??= list());
  const watched = new Set(statusFilter(options));
  const all = listedContainers(entries);
  const listed = all.filter((c) => watched.has(c.state));
  const ownId = knownOwnId ?? containerIdFromHostname(listed.map((c) => c.id));
  options.listed?.(listed.find((c) => c.id === ownId));
  // After the own container is known (Tidewatch may itself run as a Swarm task), before anything is a target.
  const containers = listed.filter((c) => c.labels[SWARM_TASK_LABEL] === undefined);

  const directory = containerDirectory(containers);
  const modes = await options.namespaceModes?.of(docker, containers.map((c) => c.id), options.inspectConcurrency, signal);
  const byImage = new Map<string, { container: ListedContainer; index: number }[]>();
  containers.forEach((container, index) => {
    const group = byImage.get(container.imageId);
    if (group) group.push({ container, index });
    else byImage.set(container.imageId, [{ container, index }]);
  });

  const targets = new Array<Target | undefined>(containers.length);
  const lease = imageFacts?.lease();
  // What the cache answers, looked up once: only the other images are listed or inspected.
  const known = new Map<string, ImageFacts>();
  for (const imageId of byImage.keys()) {
    const facts = lease?.get(imageId);
    if (facts) known.set(imageId, facts);
  }
  const imageList = byImage.size - known.size >= listFrom ? await (imagesAhead ?? imagesById(docker, signal)) : undefined;
  await mapBounded([...byImage], options.inspectConcurrency, async ([imageId, group]) => {
    const cached = known.get(imageId);
    const [image, configImages] = await Promise.all([
      // An image the list did not show (pulled or removed since) is inspected on its own.
      cached ?? imageList?.get(imageId) ?? inspectImage(docker, imageId, signal),
      Promise.all(group.map(({ container }) => (container.imageNameHidden ? configImageOf(docker, container.id, signal) : container.configImage))),
    ]);
    if (image && !cached) lease?.set(imageId, image);
    const batch: Target[] = [];
    // Per repository the image runs under: the targets of one share one array (the registry source splits it once).
    const digestsByName = new Map<string, readonly string[]>();
    group.forEach(({ container, index }, i) => {
      const configImage = configImages[i];
      // Removed between the list and the inspect: not a target any more.
      if (configImage === undefined) return;
      const name = imageNameOf(configImage, container.labels);
      let digests = digestsByName.get(name);
      if (!digests) {
        digests = knownDigests(profile?.keepsImageIdAsManifestDigest === true, name, imageId, image?.RepoDigests ?? []);
        digestsByName.set(name, digests);
      }
      const target = toTarget({
        container: { ...container, configImage },
        image: image && digests !== image.RepoDigests ? { ...image, RepoDigests: digests } : image,
        dependsOn: dependenciesOf(modes ? { ...container, namespaceModes: modes.get(container.id) ?? [] } : container, directory, options),
        isSelf: container.id === ownId || isSelfLabelled(container.labels),
        host: options.host,
        stage: options.stage,
      });
      targets[index] = target;
      batch.push(target);
    });
    options.announce?.(batch);
  });
  lease?.commit();
  return { targets: targets.filter((t): t is Target => t !== undefined), ownId };
}
