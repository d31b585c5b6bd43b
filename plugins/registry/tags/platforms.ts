// Which platforms a candidate tag serves, read from the registry without pulling (docs/tags.md#platforms):
// for an index, its child list (one manifest request); for a single manifest, its config blob's
// os/architecture/variant (the manifest request and one blob). A newer tag without the running image's
// platform is never applied: What's Up Docker offered postgres 17.1 before its amd64 image existed (#488).
import type { ImageReference } from '../../../core/index.js';
import type { RegistryClient } from '../client.js';
import { defaultPlatform, isIndex, parseJson, parsePlatform, variantOf, type Platform } from '../image-created.js';

export type { Platform };

export interface TagPlatforms {
  /** The digest the tag names now: what the runtime pulls if this tag is chosen. */
  readonly digest: string;
  readonly platforms: readonly Platform[];
}

interface IndexEntry {
  readonly platform?: { os?: unknown; architecture?: unknown; variant?: unknown };
}

function platformOf(value: { os?: unknown; architecture?: unknown; variant?: unknown } | undefined): Platform | undefined {
  if (typeof value?.os !== 'string' || typeof value.architecture !== 'string') return undefined;
  // Attestation manifests in an index say `unknown/unknown`: they run nowhere.
  if (value.os === 'unknown' || value.architecture === 'unknown') return undefined;
  return typeof value.variant === 'string' && value.variant !== ''
    ? { os: value.os, architecture: value.architecture, variant: value.variant }
    : { os: value.os, architecture: value.architecture };
}

/** The tag's digest and platforms. */
export async function tagPlatforms(client: RegistryClient, ref: ImageReference, tag: string, signal?: AbortSignal): Promise<TagPlatforms> {
  const manifest = await client.manifest(ref, tag, signal);
  if (isIndex(manifest)) {
    const index = parseJson<{ manifests?: IndexEntry[] }>(manifest.body, 'image index');
    const platforms = (index.manifests ?? []).map((entry) => platformOf(entry.platform)).filter((p) => p !== undefined);
    return { digest: manifest.digest, platforms };
  }
  const doc = parseJson<{ config?: { digest?: unknown } }>(manifest.body, 'manifest');
  const config = doc.config?.digest;
  if (typeof config !== 'string') return { digest: manifest.digest, platforms: [] };
  const blob = parseJson<{ os?: unknown; architecture?: unknown; variant?: unknown }>(await client.blob(ref, config, signal), 'image config');
  const platform = platformOf(blob);
  return { digest: manifest.digest, platforms: platform ? [platform] : [] };
}

/** Whether `platforms` hold `wanted` (a variant is compared when both name one; arm64 means v8). */
export function servesPlatform(platforms: readonly Platform[], wanted: Platform): boolean {
  const variant = variantOf(wanted.architecture, wanted.variant);
  return platforms.some(
    (p) =>
      p.os === wanted.os &&
      p.architecture === wanted.architecture &&
      (variant === undefined || p.variant === undefined || variantOf(p.architecture, p.variant) === variant),
  );
}

/** `os/arch[/variant]` as the runtime reported it, else this machine's (a Swarm service's tasks run on many nodes). */
export function runningPlatformOf(text: string | undefined): Platform {
  if (!text) return defaultPlatform();
  try {
    return parsePlatform(text);
  } catch {
    return defaultPlatform();
  }
}

export function formatPlatform(p: Platform): string {
  return [p.os, p.architecture, p.variant].filter(Boolean).join('/');
}
