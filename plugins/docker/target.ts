// Turning a listed (or inspected) container and its image into the runtime-neutral Target the core works with.
import type Docker from 'dockerode';
import { parseImageReference, type Target } from '../../core/index.js';
import { isImageId } from './replace/restore-reference.js';

export const RUNTIME = 'docker';
/**
 * Watchtower's zodiac label: the image name of a container created on a bare image id. Read only then: a
 * container created on a name is known by that name, whatever label an earlier container left behind
 * (docs/state.md#rollback-on-demand).
 */
export const ZODIAC_IMAGE_LABEL = 'com.centurylinklabs.zodiac.original-image';
/**
 * Written on every container a replacement creates: the id of the container it replaces. Start-up repair
 * tells the unproven replacement of a container moved aside from any other holder of its name by it
 * (docs/stopping.md#start-up-repair), whatever image either runs.
 */
export const REPLACES_LABEL = 'tidewatch.replaces';

/** `Config.Image` (the zodiac label for an image id), with `:latest` added to an untagged name as Watchtower does. */
export function imageNameOf(configImage: string, labels: Readonly<Record<string, string>>): string {
  const name = (isImageId(configImage) && labels[ZODIAC_IMAGE_LABEL]) || configImage;
  try {
    const ref = parseImageReference(name, { defaultTag: false });
    return ref.tag === undefined && ref.digest === undefined ? `${name}:latest` : name;
  } catch {
    // An image id (`sha256:…`) or anything the parser refuses is kept as the engine gave it.
    return name;
  }
}

export function containerName(rawName: string): string {
  return rawName.replace(/^\//, '');
}

/** What a Target needs of a container: the container list carries all of it (docs/performance.md). */
export interface ContainerFacts {
  readonly id: string;
  /** Without the leading slash. */
  readonly name: string;
  /** `Config.Image`: the reference the container was created from. */
  readonly configImage: string;
  readonly imageId: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly state: string;
}

/** What a Target needs of an image: an image inspect and an entry of the image list both carry it. */
export interface ImageFacts {
  readonly RepoDigests?: readonly string[];
  /** The image list's `Labels`, an inspect's `Config.Labels`. */
  readonly labels: Readonly<Record<string, string>> | null | undefined;
}

export function imageFactsOfInspect(info: Docker.ImageInspectInfo): ImageFacts {
  return { RepoDigests: info.RepoDigests, labels: info.Config?.Labels };
}

export function imageFactsOfListEntry(entry: Docker.ImageInfo): ImageFacts {
  return { RepoDigests: entry.RepoDigests, labels: entry.Labels };
}

export interface TargetParts {
  readonly container: ContainerFacts;
  /** Undefined when the image is gone (removed with --force while the container kept it). */
  readonly image: ImageFacts | undefined;
  readonly dependsOn: readonly string[];
  readonly isSelf: boolean;
  /** The engine as configured (docs/hosts.md); absent where no engine is named (a test's own client). */
  readonly host?: string;
  /** The engine's rollout stage (docs/rollouts.md); absent: stage 1. */
  readonly stage?: number;
}

const NO_LABELS: Readonly<Record<string, string>> = Object.freeze({});
const NO_DIGESTS: readonly string[] = Object.freeze([]);

/**
 * The parts are the engine's answers of this run, read by nobody else: the target keeps them rather than
 * copies (a run makes a target of every container; targets of one image share its facts).
 */
export function toTarget({ container, image, dependsOn, isSelf, host, stage }: TargetParts): Target {
  const target: Target & { host?: string; stage?: number } = {
    runtime: RUNTIME,
    id: container.id,
    name: container.name,
    image: imageNameOf(container.configImage, container.labels),
    imageId: container.imageId,
    repoDigests: image?.RepoDigests ?? NO_DIGESTS,
    labels: container.labels,
    imageLabels: image?.labels ?? NO_LABELS,
    state: container.state,
    dependsOn,
    isSelf,
  };
  if (host !== undefined) target.host = host;
  if (stage !== undefined) target.stage = stage;
  return target;
}
