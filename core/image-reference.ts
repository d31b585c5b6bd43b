// Image references with Docker's normalisation: `nginx` is `docker.io/library/nginx:latest`. What the
// core knows, and why: every target runs an OCI image named the way Docker names it, and the request
// filters (`image=nginx` matches any tag of the familiar name) must agree with the registry source and the
// runtimes on what a name means, so the one parser lives here.
import { TidewatchError } from './errors.js';

export interface ImageReference {
  /** Registry host with port, `docker.io` for Docker Hub. */
  readonly registry: string;
  /** Repository path, `library/nginx` for official Hub images. */
  readonly repository: string;
  /** Tag; `latest` when neither tag nor digest was given. Undefined for a digest-only reference. */
  readonly tag: string | undefined;
  /** `sha256:…` when the reference pins a digest. */
  readonly digest: string | undefined;
}

const DOCKER_HUB = 'docker.io';
const HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]{32,}$/;

export class InvalidImageReferenceError extends TidewatchError {
  constructor(reference: string, why: string) {
    super('TW_ERR_IMAGE_REFERENCE', `invalid image reference "${reference}": ${why}`, 400);
    this.name = 'InvalidImageReferenceError';
  }
}

/** Whether the first path component names a registry host rather than a Hub namespace. */
function isRegistryHost(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost';
}

export function parseImageReference(reference: string, options: { defaultTag?: boolean } = {}): ImageReference {
  const input = reference.trim();
  if (input === '') throw new InvalidImageReferenceError(reference, 'empty');
  let rest = input;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) throw new InvalidImageReferenceError(reference, 'malformed digest');
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) throw new InvalidImageReferenceError(reference, `malformed tag "${tag}"`);
  }
  const slash = rest.indexOf('/');
  let registry = DOCKER_HUB;
  let path = rest;
  if (slash !== -1 && isRegistryHost(rest.slice(0, slash))) {
    registry = rest.slice(0, slash);
    path = rest.slice(slash + 1);
  }
  if (HUB_ALIASES.has(registry)) {
    registry = DOCKER_HUB;
    if (!path.includes('/')) path = `library/${path}`;
  }
  for (const component of path.split('/')) {
    if (!PATH_COMPONENT.test(component)) {
      throw new InvalidImageReferenceError(reference, `malformed repository component "${component}"`);
    }
  }
  if (tag === undefined && digest === undefined && options.defaultTag !== false) tag = 'latest';
  return { registry, repository: path, tag, digest };
}

/** `registry/repository` without tag or digest, e.g. `docker.io/library/nginx`. */
export function repositoryName(ref: ImageReference): string {
  return `${ref.registry}/${ref.repository}`;
}

/** The full normalised reference, e.g. `docker.io/library/nginx:latest`. */
export function formatImageReference(ref: ImageReference): string {
  return repositoryName(ref) + (ref.tag ? `:${ref.tag}` : '') + (ref.digest ? `@${ref.digest}` : '');
}

/** The short form users type: `nginx:1.25`, `ghcr.io/org/app:main`. */
export function familiarName(ref: ImageReference): string {
  let name = repositoryName(ref);
  if (ref.registry === DOCKER_HUB) {
    name = ref.repository.startsWith('library/') ? ref.repository.slice('library/'.length) : ref.repository;
  }
  return name + (ref.tag ? `:${ref.tag}` : '') + (ref.digest ? `@${ref.digest}` : '');
}

/** The parsed reference, or undefined when the text is not a valid reference. */
export function tryParseImageReference(reference: string): ImageReference | undefined {
  try {
    return parseImageReference(reference);
  } catch {
    return undefined;
  }
}
