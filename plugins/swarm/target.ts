// A Swarm service as the runtime-neutral Target. The service spec pins `repo:tag@sha256:…` (the Docker CLI
// resolves the digest when the service is created or updated): the target's image is `repo:tag`, the pinned
// digest its one repo digest, so the registry source compares it exactly as it compares a container's image
// (docs/swarm.md#how-a-service-is-checked).
import { parseImageReference, type Target } from '../../core/index.js';
import type { SwarmService } from './engine-types.js';

export const RUNTIME = 'swarm';
export const KIND = 'service';

/** A service image split into the name the user wrote (`repo:tag`) and the digest Swarm pinned, if any. */
export interface ServiceImage {
  /** `repo:tag` (`:latest` added to an untagged name, as for containers); the whole spec image when it pins a digest without a tag. */
  readonly image: string;
  /** `repo` without tag or digest, as written. */
  readonly repository: string;
  readonly tag: string | undefined;
  readonly digest: string | undefined;
}

export function splitServiceImage(specImage: string): ServiceImage {
  const at = specImage.lastIndexOf('@');
  const name = at === -1 ? specImage : specImage.slice(0, at);
  const digest = at === -1 ? undefined : specImage.slice(at + 1);
  let tag: string | undefined;
  try {
    tag = parseImageReference(name, { defaultTag: false }).tag;
  } catch {
    // Kept as written; the registry source reports what it cannot parse.
    return { image: specImage, repository: name, tag: undefined, digest };
  }
  const repository = tag === undefined ? name : name.slice(0, name.length - tag.length - 1);
  if (tag === undefined) {
    // `repo@sha256:…` is pinned by its owner: it stays exactly that, and a pinned digest never moves.
    if (digest !== undefined) return { image: specImage, repository, tag: undefined, digest };
    tag = 'latest';
  }
  return { image: `${repository}:${tag}`, repository, tag, digest };
}

/**
 * Swarm's update states that leave a service stuck until someone acts (docs/swarm.md#paused-updates): with the
 * failure action `pause`, a failed update stops half done with the new image in the spec; a failed rollback
 * likewise. The target's state says so instead of `running`.
 */
const PAUSED: Readonly<Record<string, string>> = { paused: 'update paused', rollback_paused: 'rollback paused' };

export function pausedState(service: SwarmService): string | undefined {
  return PAUSED[service.UpdateStatus?.State ?? ''];
}

/** Swarm's message of a paused service's update, by the target discovery made of it (bounded: it is the engine's). */
const pausedMessages = new WeakMap<Target, string>();

/**
 * Why a paused service's check reports an error rather than "up to date" (its spec names the new image, so the
 * registry would find nothing newer): undefined for any other target.
 */
export function pausedReason(target: Target): string | undefined {
  if (target.runtime !== RUNTIME || !Object.values(PAUSED).includes(target.state)) return undefined;
  const message = pausedMessages.get(target);
  const what = target.state === PAUSED.paused ? 'Swarm paused the update of this service' : 'Swarm paused the rollback of this service';
  return `${what}${message ? ` (${message})` : ''}: its tasks may not run; fix it with docker service update or docker service rollback`;
}

export function serviceTarget(service: SwarmService, host: string): Target {
  const spec = service.Spec;
  const image = splitServiceImage(spec.TaskTemplate?.ContainerSpec?.Image ?? '');
  const target: Target = {
    runtime: RUNTIME,
    kind: KIND,
    host,
    id: service.ID,
    name: spec.Name ?? service.ID,
    image: image.image,
    // No local image id: tasks run on many nodes. The pinned digest names the image exactly.
    imageId: image.digest ?? '',
    repoDigests: image.digest === undefined ? [] : [`${image.repository}@${image.digest}`],
    labels: { ...(spec.Labels ?? {}) },
    imageLabels: {},
    state: pausedState(service) ?? 'running',
    dependsOn: [],
    isSelf: false,
  };
  const message = service.UpdateStatus?.Message;
  if (pausedState(service) && message) pausedMessages.set(target, message.slice(0, 200));
  return target;
}
