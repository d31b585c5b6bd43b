// Tag-heavy repositories pushed over Distribution's HTTP API from Node, no Docker needed: one image's blobs,
// then one small manifest per tag (distinct by an annotation, so every tag has its own digest), or an image
// index of given platforms. Each platform's config says its os/architecture, which is all the tag policies read.
import { MEDIA, buildManifest, pushBlob, putManifest, type Platform } from './images.js';

export interface TagSet {
  /** tag → the digest it names */
  readonly digests: Map<string, string>;
}

/** Pushes `tags`, each its own manifest of the one image for `platform` (this machine's by default). */
export async function pushTags(registry: string, repo: string, tags: readonly string[], platform?: Platform, parallel = 16): Promise<TagSet> {
  const built = await buildManifest({ registry, repo, marker: `tags-${platform?.architecture ?? 'native'}` }, platform);
  for (const layer of built.layers) await pushBlob(registry, repo, layer.blob, layer.digest);
  await pushBlob(registry, repo, built.configBytes, built.configDigest);
  const base = JSON.parse(built.manifest.toString('utf8')) as Record<string, unknown>;
  const digests = new Map<string, string>();
  const queue = [...tags];
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let tag = queue.shift(); tag !== undefined; tag = queue.shift()) {
        const body = Buffer.from(JSON.stringify({ ...base, annotations: { 'org.example.tag': tag } }));
        digests.set(tag, await putManifest(registry, repo, tag, body, built.mediaType));
      }
    }),
  );
  return { digests };
}

/** Pushes an image index under `tag` holding one manifest per platform; returns its digest. */
export async function pushIndex(registry: string, repo: string, tag: string, platforms: readonly Platform[]): Promise<string> {
  const entries = [];
  for (const platform of platforms) {
    const built = await buildManifest({ registry, repo, marker: `index-${tag}` }, platform);
    for (const layer of built.layers) await pushBlob(registry, repo, layer.blob, layer.digest);
    await pushBlob(registry, repo, built.configBytes, built.configDigest);
    await putManifest(registry, repo, built.digest, built.manifest, built.mediaType);
    entries.push({ mediaType: built.mediaType, size: built.manifest.length, digest: built.digest, platform });
  }
  const body = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA.dockerList, manifests: entries }));
  return putManifest(registry, repo, tag, body, MEDIA.dockerList);
}

/** A platform that is not this machine's. */
export function foreignPlatform(): Platform {
  return process.arch === 's390x' ? { os: 'linux', architecture: 'ppc64le' } : { os: 'linux', architecture: 's390x' };
}
