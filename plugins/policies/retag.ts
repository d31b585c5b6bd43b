// How an approval names its candidate's reference (docs/policies.md#approvals).

/** `repo:old` → `repo:new`, as written (a registry port is not a tag; a digest is dropped). */
export function retag(image: string, tag: string): string {
  const at = image.indexOf('@');
  const name = at >= 0 ? image.slice(0, at) : image;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  return `${colon > slash ? name.slice(0, colon) : name}:${tag}`;
}
