// The version change of a tag update in words, for the entries and the `default` template's data
// (docs/notifications.md#tag-updates): `nginx 1.25.3-alpine → 1.25.4-alpine (patch)`.

/** The image name as written, without its tag and digest: `nginx`, `127.0.0.1:5000/demo/app`. */
export function imageRepository(image: string): string {
  const at = image.indexOf('@');
  const named = at === -1 ? image : image.slice(0, at);
  const colon = named.lastIndexOf(':');
  return colon > named.lastIndexOf('/') ? named.slice(0, colon) : named;
}

export interface TagChange {
  readonly currentTag?: string;
  readonly latestTag?: string;
  readonly updateKind?: string;
}

/** `nginx 1.25.3-alpine → 1.25.4-alpine (patch)`, or undefined when the tag does not change. */
export function versionChange(image: string, change: TagChange): string | undefined {
  const { currentTag, latestTag, updateKind } = change;
  if (!latestTag || latestTag === currentTag) return undefined;
  return `${imageRepository(image)} ${currentTag ?? '?'} → ${latestTag}${updateKind ? ` (${updateKind})` : ''}`;
}
