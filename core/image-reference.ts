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

// Runs parse the same few references again and again (every target, every check, every record): the
// outcome of each, valid or not, is remembered, so a check of a fleet parses each distinct reference
// once (docs/performance.md). Bounded: cleared when it grows past what any fleet holds. One map per
// default-tag rule, keyed by the reference itself: a key built per call would be hashed anew each time.
const MEMO_LIMIT = 10_000;
const memos = { tagged: new Map<string, ImageReference | string>(), untagged: new Map<string, ImageReference | string>() };

/** The parsed reference, or why it is not one. */
function parse(reference: string, defaultTag: boolean): ImageReference | string {
  const memo = defaultTag ? memos.tagged : memos.untagged;
  let outcome = memo.get(reference);
  if (outcome === undefined) {
    outcome = parseUncached(reference, defaultTag);
    if (typeof outcome !== 'string') Object.freeze(outcome);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(reference, outcome);
  }
  return outcome;
}

function parseUncached(reference: string, defaultTag: boolean): ImageReference | string {
  const input = reference.trim();
  if (input === '') return 'empty';
  let rest = input;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at !== -1) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return 'malformed digest';
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return `malformed tag "${tag}"`;
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
    if (!PATH_COMPONENT.test(component)) return `malformed repository component "${component}"`;
  }
  if (tag === undefined && digest === undefined && defaultTag) tag = 'latest';
  return { registry, repository: path, tag, digest };
}

/** Parses `[registry/]repository[:tag][@digest]`; throws InvalidImageReferenceError naming what is wrong. */
export function parseImageReference(reference: string, options: { defaultTag?: boolean } = {}): ImageReference {
  const outcome = parse(reference, options.defaultTag !== false);
  if (typeof outcome === 'string') throw new InvalidImageReferenceError(reference, outcome);
  return outcome;
}

// Parsed references are shared and frozen: each one's repository name is made once (docs/performance.md).
const repositoryNames = new WeakMap<ImageReference, string>();

/** `registry/repository` without tag or digest, e.g. `docker.io/library/nginx`. */
export function repositoryName(ref: ImageReference): string {
  let name = repositoryNames.get(ref);
  if (name === undefined) {
    name = `${ref.registry}/${ref.repository}`;
    if (Object.isFrozen(ref)) repositoryNames.set(ref, name);
  }
  return name;
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
  const outcome = parse(reference, true);
  return typeof outcome === 'string' ? undefined : outcome;
}
