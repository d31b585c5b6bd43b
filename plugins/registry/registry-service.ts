// The REGISTRY_CLIENT service: registry reads other plugins make (signature verification,
// docs/signatures.md) through this plugin's client, so they share its connections, credentials, bound on
// requests in flight and 429 handling (docs/plugins.md#services). A registry's answers are untrusted: every
// body is bounded in bytes and a read by digest is checked against that digest.
import { parseImageReference, type ImageReference } from '../../core/index.js';
import type { RegistryClientService, RegistryDocument, RegistryReadOptions } from './contracts.js';
import { RegistryError, type RegistryClient } from './client.js';
import { MANIFEST_MAX_BYTES, header, type RegistryReply } from './transport.js';
import { sha256Digest } from './content-digest.js';

/**
 * A blob read through the service is never larger than this, whatever the caller asks: 16 MiB, what one attestation
 * may hold (scanner reports are often several MiB, docs/attestations.md#bounds). Callers ask for less where they can.
 */
export const SERVICE_BLOB_MAX_BYTES = 16 * MANIFEST_MAX_BYTES;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';

function repositoryOf(image: string): ImageReference {
  const ref = parseImageReference(image);
  return { ...ref, tag: undefined, digest: undefined };
}

function bound(options: RegistryReadOptions | undefined, ceiling: number): number {
  const asked = options?.maxBytes ?? ceiling;
  return Math.max(1, Math.min(asked, ceiling));
}

/** The document's type: the header's, or its own `mediaType` when the header is missing or generic. */
function mediaTypeOf(reply: RegistryReply): string {
  const labelled = (header(reply.headers, 'content-type') ?? '').split(';')[0]?.trim() ?? '';
  if (labelled && labelled !== 'application/json' && labelled !== 'application/octet-stream') return labelled;
  try {
    const doc = JSON.parse(reply.body.toString('utf8')) as { mediaType?: unknown };
    if (typeof doc.mediaType === 'string') return doc.mediaType;
  } catch {
    // Left as labelled: the caller parses and judges the document.
  }
  return labelled;
}

function fail(ref: ImageReference, what: string, reply: RegistryReply): never {
  throw new RegistryError(`${ref.registry} answered ${reply.status} for ${what} of ${ref.repository}`, reply.status);
}

function checked(ref: ImageReference, what: string, expected: string, body: Buffer): void {
  const actual = sha256Digest(body);
  if (actual !== expected) throw new RegistryError(`${what} of ${ref.repository} on ${ref.registry} has digest ${actual}, not ${expected}`);
}

export function registryClientService(client: RegistryClient): RegistryClientService {
  return {
    async manifest(image, reference, accept, options): Promise<RegistryDocument | undefined> {
      const ref = repositoryOf(image);
      const byDigest = DIGEST.test(reference);
      if (!byDigest && !TAG.test(reference)) throw new RegistryError(`invalid manifest reference "${reference}"`);
      const reply = await client.get(ref, `manifests/${reference}`, accept.join(', '), bound(options, MANIFEST_MAX_BYTES), options?.signal);
      if (reply.status === 404) return undefined;
      if (reply.status < 200 || reply.status >= 300) fail(ref, `manifest ${reference}`, reply);
      if (byDigest) checked(ref, `manifest ${reference}`, reference, reply.body);
      return { digest: sha256Digest(reply.body), mediaType: mediaTypeOf(reply), body: reply.body };
    },

    async blob(image, digest, options): Promise<Buffer> {
      const ref = repositoryOf(image);
      if (!DIGEST.test(digest)) throw new RegistryError(`invalid blob digest "${digest}"`);
      const reply = await client.get(ref, `blobs/${digest}`, '*/*', bound(options, SERVICE_BLOB_MAX_BYTES), options?.signal);
      if (reply.status < 200 || reply.status >= 300) fail(ref, `blob ${digest}`, reply);
      checked(ref, `blob ${digest}`, digest, reply.body);
      return reply.body;
    },

    async referrers(image, digest, options): Promise<RegistryDocument | undefined> {
      const ref = repositoryOf(image);
      if (!DIGEST.test(digest)) throw new RegistryError(`invalid digest "${digest}"`);
      const query = options?.artifactType ? `?artifactType=${encodeURIComponent(options.artifactType)}` : '';
      const reply = await client.get(ref, `referrers/${digest}${query}`, OCI_INDEX, bound(options, MANIFEST_MAX_BYTES), options?.signal);
      // No referrers API (Distribution 2.8, older registries): the caller reads the referrers tag instead.
      if (reply.status === 404) return undefined;
      if (reply.status < 200 || reply.status >= 300) fail(ref, `referrers of ${digest}`, reply);
      return { digest: sha256Digest(reply.body), mediaType: mediaTypeOf(reply), body: reply.body };
    },
  };
}
