// An image's creation time read from its registry without pulling it: the manifest (an index is
// resolved to one platform's manifest), then the config blob, then its `created` field. The
// cooldown gate reads it through the core's REMOTE_IMAGES service.
import { parseImageReference } from '../../core/index.js';
import { MEDIA_TYPES, RegistryError, type Manifest, type RegistryClient } from './client.js';

export interface Platform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
}

interface IndexEntry {
  digest?: unknown;
  platform?: { os?: unknown; architecture?: unknown; variant?: unknown };
}

const GO_ARCH: Readonly<Record<string, string>> = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: '386',
  ppc64: 'ppc64le',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
};

/** Containers are Linux images whatever the service's own OS; the architecture is this machine's. */
export function defaultPlatform(): Platform {
  const architecture = GO_ARCH[process.arch] ?? process.arch;
  return architecture === 'arm' ? { os: 'linux', architecture, variant: 'v7' } : { os: 'linux', architecture };
}

/** `linux/arm64/v8` → a platform; throws on anything else. */
export function parsePlatform(text: string): Platform {
  const [os, architecture, variant, extra] = text.split('/');
  if (!os || !architecture || extra !== undefined) throw new RegistryError(`invalid platform "${text}" (expected os/arch[/variant])`);
  return variant ? { os, architecture, variant } : { os, architecture };
}

/** arm64 images usually leave out `v8`: treat a missing variant as the architecture's default. */
export function variantOf(architecture: string, variant: unknown): string | undefined {
  if (typeof variant === 'string' && variant !== '') return variant;
  return architecture === 'arm64' ? 'v8' : undefined;
}

export function isIndex(manifest: Manifest): boolean {
  return manifest.mediaType === MEDIA_TYPES.ociIndex || manifest.mediaType === MEDIA_TYPES.dockerManifestList;
}

export function parseJson<T>(body: Buffer, what: string): T {
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new RegistryError(`${what} is not valid JSON`);
  }
}

/** The entry of an index for `platform`; an exact variant match wins over an entry without one. */
export function selectPlatform(entries: readonly IndexEntry[], platform: Platform): string {
  const wantedVariant = variantOf(platform.architecture, platform.variant);
  const candidates = entries.filter(
    (e) => typeof e.digest === 'string' && e.platform?.os === platform.os && e.platform?.architecture === platform.architecture,
  );
  const exact = candidates.find((e) => variantOf(platform.architecture, e.platform?.variant) === wantedVariant);
  const chosen = exact ?? (platform.variant === undefined ? candidates[0] : undefined);
  if (!chosen) {
    const wanted = [platform.os, platform.architecture, platform.variant].filter(Boolean).join('/');
    throw new RegistryError(`the image index has no manifest for ${wanted}`);
  }
  return chosen.digest as string;
}

export async function imageCreated(
  client: RegistryClient,
  reference: string,
  options: { platform?: string; signal?: AbortSignal } = {},
): Promise<Date | undefined> {
  const ref = parseImageReference(reference);
  const name = ref.digest ?? ref.tag ?? 'latest';
  let manifest = await client.manifest(ref, name, options.signal);
  if (isIndex(manifest)) {
    const index = parseJson<{ manifests?: IndexEntry[] }>(manifest.body, 'image index');
    const platform = options.platform ? parsePlatform(options.platform) : defaultPlatform();
    const digest = selectPlatform(index.manifests ?? [], platform);
    manifest = await client.manifest(ref, digest, options.signal);
    if (isIndex(manifest)) throw new RegistryError('an image index points at another index');
  }
  const doc = parseJson<{ config?: { digest?: unknown } }>(manifest.body, 'manifest');
  const configDigest = doc.config?.digest;
  if (typeof configDigest !== 'string') throw new RegistryError(`manifest ${manifest.digest} names no config blob`);
  const config = parseJson<{ created?: unknown }>(await client.blob(ref, configDigest, options.signal), 'image config');
  if (typeof config.created !== 'string' || config.created === '') return undefined;
  const created = new Date(config.created);
  if (Number.isNaN(created.getTime())) throw new RegistryError(`image config has an invalid created time "${config.created}"`);
  return created;
}
