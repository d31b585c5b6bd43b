// Rewriting one Compose service's `image:` after a tag update (docs/compose.md#--compose-rewrite). Pure:
// text in, text out. The yaml Document API finds the service's own `image` scalar and its place in the
// source; only those characters are replaced, so every comment, blank line, anchor and the quoting style
// stay as they were. Refused (never guessed): an image set by variable interpolation, through an alias,
// a merge key or `extends`, or one that no longer names the old reference exactly.
import { createRequire } from 'node:module';
import type { Document, Scalar } from 'yaml';

type Yaml = typeof import('yaml');
let yamlLib: Yaml | undefined;
/** yaml loads with the first rewrite, not with the Docker runtime (docs/performance.md#footprint). */
function yaml(): Yaml {
  return (yamlLib ??= createRequire(import.meta.url)('yaml') as Yaml);
}

export type RewriteOutcome =
  | { readonly kind: 'rewritten'; readonly text: string }
  /** The file has no such service, or the service has no `image:` of its own nor any way to get one. */
  | { readonly kind: 'absent' }
  /** The service names another reference than the old one (changed by hand, or already rewritten). */
  | { readonly kind: 'mismatch'; readonly found: string }
  /** `image: ${…}`: Compose fills it in from the environment; the file has no reference to rewrite. */
  | { readonly kind: 'interpolated'; readonly found: string }
  /** The image comes from an anchor/alias, a merge key (`<<`) or `extends`: rewriting would touch others. */
  | { readonly kind: 'inherited'; readonly how: 'alias' | 'merge' | 'extends' }
  | { readonly kind: 'unsupported'; readonly why: string };

/** True when Compose would interpolate the value (`$VAR`, `${VAR}`; `$$` is a literal `$`). */
export function isInterpolated(value: string): boolean {
  return /\$(?!\$)[{A-Za-z_]/.test(value.replace(/\$\$/g, ''));
}

/**
 * The reference a tag update moves `oldRef` to, in the user's own spelling: only the tag changes, and a
 * pinned digest (`repo:tag@sha256:…`) becomes the new one. Undefined for a digest-only reference, which
 * never changes tag (docs/compose.md#tag-updates-and-compose).
 */
export function nextImageReference(oldRef: string, latestTag: string, latestDigest?: string): string | undefined {
  const at = oldRef.indexOf('@');
  const named = at === -1 ? oldRef : oldRef.slice(0, at);
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  if (colon <= slash) {
    if (at !== -1) return undefined;
    // No tag written: Docker reads `latest`.
    return `${named}:${latestTag}`;
  }
  const repo = named.slice(0, colon);
  if (at === -1) return `${repo}:${latestTag}`;
  return latestDigest ? `${repo}:${latestTag}@${latestDigest}` : undefined;
}

function serviceMap(doc: Document.Parsed, service: string) {
  const { isMap } = yaml();
  const services = doc.get('services', true);
  if (!isMap(services)) return undefined;
  const entry = services.get(service, true);
  return isMap(entry) ? entry : undefined;
}

/** The scalar's text as the source will hold it, in the style the old value was written in. */
function spelled(node: Scalar, value: string): string | undefined {
  switch (node.type) {
    case 'PLAIN':
      // A plain scalar must stay one plain token: no `: `, ` #`, leading indicator or space.
      return /^[A-Za-z0-9][\w./:@+-]*$/.test(value) && !/: | #/.test(value) ? value : JSON.stringify(value);
    case 'QUOTE_DOUBLE':
      return JSON.stringify(value);
    case 'QUOTE_SINGLE':
      return `'${value.replace(/'/g, "''")}'`;
    default:
      return undefined;
  }
}

/** Replaces `service`'s `image:` in `text` when it is exactly `oldRef`. */
export function rewriteServiceImage(text: string, service: string, oldRef: string, newRef: string): RewriteOutcome {
  const { isAlias, isScalar, parseDocument } = yaml();
  const doc = parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) return { kind: 'unsupported', why: `the file does not parse: ${doc.errors[0]?.message.split('\n')[0]}` };
  const map = serviceMap(doc, service);
  if (!map) return { kind: 'absent' };
  const pair = map.items.find((item) => isScalar(item.key) && item.key.value === 'image');
  if (!pair) {
    if (map.items.some((item) => isScalar(item.key) && item.key.value === '<<')) return { kind: 'inherited', how: 'merge' };
    if (map.has('extends')) return { kind: 'inherited', how: 'extends' };
    return { kind: 'absent' };
  }
  const node = pair.value;
  if (isAlias(node)) return { kind: 'inherited', how: 'alias' };
  if (!isScalar(node) || typeof node.value !== 'string' || !node.range) return { kind: 'unsupported', why: 'its image is not a string' };
  if (node.anchor) return { kind: 'inherited', how: 'alias' };
  const found = node.value;
  if (isInterpolated(found)) return { kind: 'interpolated', found };
  if (found !== oldRef) return { kind: 'mismatch', found };
  const replacement = spelled(node, newRef);
  if (replacement === undefined) return { kind: 'unsupported', why: 'its image is a block scalar' };
  const [start, end] = node.range;
  const rewritten = text.slice(0, start) + replacement + text.slice(end);
  // Proof, not hope: the new text parses to the old document with only that one value changed.
  const check = parseDocument(rewritten);
  const expected = doc.toJS() as { services: Record<string, Record<string, unknown>> };
  expected.services[service]!.image = newRef;
  if (check.errors.length > 0 || JSON.stringify(check.toJS()) !== JSON.stringify(expected)) {
    return { kind: 'unsupported', why: 'the rewritten file would not read back as intended' };
  }
  return { kind: 'rewritten', text: rewritten };
}
