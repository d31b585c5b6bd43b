// The version a stale answer leads to (docs/versions.md): under a tag policy the newer tag itself; otherwise
// the candidate's `org.opencontainers.image.version`, read from the registry without pulling it: a manifest
// annotation (an index's own, then the running platform's manifest's), else the config blob's label. Only a
// stale answer asks (the `review` step runs on nothing else), and a digest is read once: what a digest
// names never changes, so its version is cached by digest across runs. A Docker Hub image is read through the
// engine's registry mirrors first, as its digest was (docs/registry-mirrors.md): where Hub cannot be reached, a
// version read must not cost a Hub timeout per stale check. Content is addressed by digest, so any mirror's copy
// is the same image.
import { errorMessage, FINDINGS, parseImageReference, readFinding, withFinding, type ImageReference, type RunContext, type Staleness, type Target } from '../../core/index.js';
import type { RegistryClient } from './client.js';
import type { RegistryEndpoint } from './endpoint.js';
import { isIndex, parseJson, selectPlatform, type Platform } from './image-created.js';

export const VERSION_LABEL = 'org.opencontainers.image.version';
/** Versions are short; anything longer from an untrusted registry is not one. */
const VERSION_MAX = 128;
/** Digests remembered (a version or "none"); the oldest go first. */
const CACHE_ENTRIES = 2_000;
/** A config blob holding labels is a few kB; a larger one is not read for a label. */
const CONFIG_MAX_BYTES = 256 * 1024;

interface Annotated {
  annotations?: Record<string, unknown>;
  manifests?: { digest?: unknown; platform?: { os?: unknown; architecture?: unknown; variant?: unknown } }[];
  config?: { digest?: unknown };
}

function versionIn(values: Record<string, unknown> | null | undefined): string | undefined {
  const value = values?.[VERSION_LABEL];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed && trimmed.length <= VERSION_MAX && !/[\u0000-\u001f]/.test(trimmed) ? trimmed : undefined;
}

export interface CandidateVersionDeps {
  readonly client: RegistryClient;
  readonly platformOf: (target: Target, ctx: RunContext) => Promise<Platform>;
  /** Where to read the candidate, in order (`undefined`: the reference's own registry); absent: its registry alone. */
  readonly endpointsFor?: (ref: ImageReference, target: Target) => Promise<readonly (RegistryEndpoint | undefined)[]>;
}

export class CandidateVersions {
  readonly #deps: CandidateVersionDeps;
  /** `repository@digest` → the version, or '' when the image carries none. */
  readonly #byDigest = new Map<string, string>();

  constructor(deps: CandidateVersionDeps) {
    this.#deps = deps;
  }

  /** The `review` tap: a stale answer gains the version finding (core FINDINGS.version) when one is known. */
  async review(staleness: Staleness, target: Target, ctx: RunContext): Promise<Staleness> {
    if (readFinding(staleness, FINDINGS.version)) return staleness;
    if (staleness.latestTag && staleness.latestTag !== readFinding(staleness, FINDINGS.tags)?.currentTag) {
      return withFinding(staleness, FINDINGS.version, staleness.latestTag);
    }
    const digest = staleness.latestDigest;
    if (!digest) return staleness;
    let version: string;
    try {
      const ref = parseImageReference(target.image);
      const key = `${ref.registry}/${ref.repository}@${digest}`;
      // Every container of one image shares the read within a run, and the cache across runs.
      version = await ctx.memo(`registry:candidate-version:${key}`, () => this.#cached(key, ref, digest, target, ctx));
    } catch (err) {
      // A version is a nicety: the update stays as found, without one.
      ctx.logger.debug({ container: target.name, err: errorMessage(err) }, 'candidate version unknown');
      return staleness;
    }
    return version ? withFinding(staleness, FINDINGS.version, version) : staleness;
  }

  async #cached(key: string, ref: ImageReference, digest: string, target: Target, ctx: RunContext): Promise<string> {
    const known = this.#byDigest.get(key);
    if (known !== undefined) return known;
    // A digest's content never changes: one that cannot be read (no config, a broken index) is not asked again.
    const version = (await this.#readFromFirst(ref, digest, target, ctx).catch((err: unknown) => {
      ctx.logger.debug({ container: target.name, err: errorMessage(err) }, 'candidate version unreadable');
      return undefined;
    })) ?? '';
    this.#byDigest.set(key, version);
    if (this.#byDigest.size > CACHE_ENTRIES) this.#byDigest.delete(this.#byDigest.keys().next().value as string);
    return version;
  }

  /** The first endpoint that serves the digest answers; the last one's failure is the error. */
  async #readFromFirst(ref: ImageReference, digest: string, target: Target, ctx: RunContext): Promise<string | undefined> {
    const endpoints = (await this.#deps.endpointsFor?.(ref, target)) ?? [undefined];
    let failure: unknown;
    for (const at of endpoints) {
      try {
        return await this.#read(ref, digest, target, ctx, at);
      } catch (err) {
        failure = err;
      }
    }
    throw failure;
  }

  async #read(ref: ImageReference, digest: string, target: Target, ctx: RunContext, at: RegistryEndpoint | undefined): Promise<string | undefined> {
    const { client } = this.#deps;
    let manifest = await client.manifest(ref, digest, ctx.signal, at);
    let doc = parseJson<Annotated>(manifest.body, 'manifest');
    if (isIndex(manifest)) {
      const own = versionIn(doc.annotations);
      if (own) return own;
      const child = selectPlatform(doc.manifests ?? [], await this.#deps.platformOf(target, ctx));
      manifest = await client.manifest(ref, child, ctx.signal, at);
      if (isIndex(manifest)) return undefined;
      doc = parseJson<Annotated>(manifest.body, 'manifest');
    }
    const annotated = versionIn(doc.annotations);
    if (annotated) return annotated;
    const config = doc.config?.digest;
    if (typeof config !== 'string') return undefined;
    const body = await client.blob(ref, config, ctx.signal, CONFIG_MAX_BYTES, at);
    return versionIn(parseJson<{ config?: { Labels?: Record<string, unknown> | null } }>(body, 'image config').config?.Labels);
  }
}
