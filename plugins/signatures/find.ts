// Finding the signatures of one candidate digest on its registry, through the REGISTRY_CLIENT service
// (docs/signatures.md#signing-images-with-cosign):
//   1. the OCI 1.1 referrers API `GET /v2/<name>/referrers/<digest>`; a 404 means the registry has none
//      (remembered per registry), and the referrers tag `sha256-<hex>` is read instead: cosign v3 stores
//      its Sigstore bundles as artifacts listed there;
//   2. the legacy tag `sha256-<hex>.sig`: cosign's simple-signing manifest, one layer per signature.
// Everything read is untrusted: entries, layers and bytes are bounded, and reads by digest are checked.
import type { RegistryClientService, RegistryDocument } from '../../contracts/index.js';

export const MEDIA = Object.freeze({
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  bundle: 'application/vnd.dev.sigstore.bundle.v0.3+json',
  dsseEnvelope: 'application/vnd.dsse.envelope.v1+json',
  simpleSigning: 'application/vnd.dev.cosign.simplesigning.v1+json',
  empty: 'application/vnd.oci.empty.v1+json',
});
export const ANNOTATIONS = Object.freeze({
  signature: 'dev.cosignproject.cosign/signature',
  certificate: 'dev.sigstore.cosign/certificate',
  chain: 'dev.sigstore.cosign/chain',
  bundle: 'dev.sigstore.cosign/bundle',
  predicateType: 'dev.sigstore.bundle.predicateType',
});

/** Bounds on what one candidate may make us read (docs/signatures.md#what-it-costs-per-check). */
export const LIMITS = Object.freeze({
  /** Referrer entries looked at, and bundles read, per candidate. */
  referrers: 16,
  bundles: 4,
  /** Simple-signing layers read per candidate. */
  layers: 4,
  indexBytes: 256 * 1024,
  manifestBytes: 64 * 1024,
  bundleBytes: 256 * 1024,
  payloadBytes: 16 * 1024,
  /** Attestations (docs/attestations.md#bounds): entries read per candidate, and bytes per bundle or envelope. */
  attestations: 8,
  attestationBytes: 16 * 1024 * 1024,
});

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly artifactType?: string;
  readonly annotations: Readonly<Record<string, string>>;
}

/** What was read for one attestation entry: its bytes (not yet verified), or why it could not be read. */
export type AttestationBlob =
  | { readonly format: 'bundle' | 'legacy'; readonly body: Buffer; readonly annotations: Readonly<Record<string, string>> }
  | { readonly format: 'bundle' | 'legacy'; readonly why: string };

/** A simple-signing layer: the payload blob and its layer's annotations. */
export interface LegacySignature {
  readonly payload: Buffer;
  readonly annotations: Readonly<Record<string, string>>;
}

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const MANIFEST_TYPES = [MEDIA.ociManifest, MEDIA.dockerManifest];

function parseObject(body: Buffer, what: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Error(`${what} is not JSON`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${what} is not a JSON object`);
  return doc as Record<string, unknown>;
}

function stringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** The well-formed descriptors of `list`, at most `max`. */
export function descriptors(list: unknown, max: number): Descriptor[] {
  if (!Array.isArray(list)) return [];
  const out: Descriptor[] = [];
  for (const entry of list.slice(0, max) as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const e = entry as Record<string, unknown>;
    if (typeof e.digest !== 'string' || !DIGEST.test(e.digest) || typeof e.mediaType !== 'string') continue;
    const size = typeof e.size === 'number' && Number.isSafeInteger(e.size) && e.size >= 0 ? e.size : -1;
    out.push({
      mediaType: e.mediaType,
      digest: e.digest,
      size,
      ...(typeof e.artifactType === 'string' ? { artifactType: e.artifactType } : {}),
      annotations: stringRecord(e.annotations),
    });
  }
  return out;
}

export class SignatureFinder {
  readonly #registry: RegistryClientService;
  /**
   * Per registry, whether it has the referrers API: a 404 means it has none (a registry with it answers
   * 200, with an empty index when nothing refers), so it is asked once, not once per candidate.
   */
  readonly #referrersApi = new Map<string, Promise<boolean>>();

  constructor(registry: RegistryClientService) {
    this.#registry = registry;
  }

  /** The Sigstore bundles (parsed JSON, not yet verified) listed for `digest`, signature types first. */
  async bundles(image: string, registry: string, digest: string, signal?: AbortSignal): Promise<unknown[]> {
    const entries = await this.#referrers(image, registry, digest, signal);
    const candidates = entries
      .filter(mayHoldBundle)
      // An entry that says it is an attestation is read last: it can never be accepted as a signature.
      .sort((a, b) => Number(isAttestation(a)) - Number(isAttestation(b)))
      .slice(0, LIMITS.bundles);
    const bundles: unknown[] = [];
    for (const entry of candidates) {
      const manifest = await this.#registry.manifest(image, entry.digest, MANIFEST_TYPES, { maxBytes: LIMITS.manifestBytes, ...(signal ? { signal } : {}) });
      if (!manifest) continue;
      const doc = parseObject(manifest.body, `referrer ${entry.digest}`);
      const layer = descriptors(doc.layers, LIMITS.layers).find((l) => l.mediaType === MEDIA.bundle);
      if (!layer) continue;
      if (layer.size > LIMITS.bundleBytes) throw new Error(`bundle ${layer.digest} is ${layer.size} bytes, over the ${LIMITS.bundleBytes}-byte bound`);
      const blob = await this.#registry.blob(image, layer.digest, { maxBytes: LIMITS.bundleBytes, ...(signal ? { signal } : {}) });
      bundles.push(parseObject(blob, `bundle ${layer.digest}`));
    }
    return bundles;
  }

  /** The simple-signing layers of the legacy tag `sha256-<hex>.sig`, with their payloads. */
  async legacy(image: string, digest: string, signal?: AbortSignal): Promise<LegacySignature[]> {
    const tag = `${digest.replace(':', '-')}.sig`;
    const manifest = await this.#registry.manifest(image, tag, MANIFEST_TYPES, { maxBytes: LIMITS.manifestBytes, ...(signal ? { signal } : {}) });
    if (!manifest) return [];
    const layers = descriptors(parseObject(manifest.body, `signature manifest ${tag}`).layers, LIMITS.layers).filter(
      (l) => l.mediaType === MEDIA.simpleSigning && l.annotations[ANNOTATIONS.signature] !== undefined,
    );
    const found: LegacySignature[] = [];
    for (const layer of layers) {
      if (layer.size > LIMITS.payloadBytes) throw new Error(`signature payload ${layer.digest} is ${layer.size} bytes, over the ${LIMITS.payloadBytes}-byte bound`);
      const payload = await this.#registry.blob(image, layer.digest, { maxBytes: LIMITS.payloadBytes, ...(signal ? { signal } : {}) });
      found.push({ payload, annotations: layer.annotations });
    }
    return found;
  }

  /**
   * The attestations attached to `digest` whose predicate type is one of `types` (docs/attestations.md): the
   * Sigstore bundles among its referrers (cosign 3) and the DSSE envelopes of the legacy tag `sha256-<hex>.att`.
   * Each is read up to LIMITS.attestationBytes; a larger one is reported, not read. Nothing is verified here.
   */
  async attestations(image: string, registry: string, digest: string, types: ReadonlySet<string>, signal?: AbortSignal): Promise<AttestationBlob[]> {
    const opts = signal ? { signal } : {};
    const found: AttestationBlob[] = [];
    const entries = (await this.#referrers(image, registry, digest, signal))
      .filter((e) => mayHoldBundle(e) && isWanted(e.annotations[ANNOTATIONS.predicateType], types))
      .slice(0, LIMITS.attestations);
    for (const entry of entries) {
      const manifest = await this.#registry.manifest(image, entry.digest, MANIFEST_TYPES, { maxBytes: LIMITS.manifestBytes, ...opts });
      if (!manifest) continue;
      const layer = descriptors(parseObject(manifest.body, `referrer ${entry.digest}`).layers, LIMITS.layers).find((l) => l.mediaType === MEDIA.bundle);
      if (layer) found.push(await this.#readBounded(image, layer, 'bundle', opts));
    }
    const tag = `${digest.replace(':', '-')}.att`;
    const legacy = await this.#registry.manifest(image, tag, MANIFEST_TYPES, { maxBytes: LIMITS.manifestBytes, ...opts });
    if (legacy) {
      const layers = descriptors(parseObject(legacy.body, `attestation manifest ${tag}`).layers, LIMITS.attestations)
        .filter((l) => l.mediaType === MEDIA.dsseEnvelope && isWanted(l.annotations['predicateType'], types));
      for (const layer of layers.slice(0, Math.max(0, LIMITS.attestations - found.length))) found.push(await this.#readBounded(image, layer, 'legacy', opts));
    }
    return found;
  }

  async #readBounded(image: string, layer: Descriptor, format: 'bundle' | 'legacy', opts: { signal?: AbortSignal }): Promise<AttestationBlob> {
    if (layer.size > LIMITS.attestationBytes) return { format, why: `attestation ${layer.digest} is ${layer.size} bytes, over the ${LIMITS.attestationBytes}-byte bound` };
    try {
      const body = await this.#registry.blob(image, layer.digest, { maxBytes: LIMITS.attestationBytes, ...opts });
      return { format, body, annotations: layer.annotations };
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      return { format, why: `attestation ${layer.digest} could not be read: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  /** The referrer descriptors of `digest`: the referrers API, else the referrers tag. */
  async #referrers(image: string, registry: string, digest: string, signal?: AbortSignal): Promise<Descriptor[]> {
    const opts = { maxBytes: LIMITS.indexBytes, ...(signal ? { signal } : {}) };
    const ask = () => this.#registry.referrers(image, digest, { ...opts, artifactType: MEDIA.bundle });
    let api = this.#referrersApi.get(registry);
    let index: RegistryDocument | undefined;
    if (api === undefined) {
      // The first candidate of a registry asks; those arriving meanwhile wait for its answer.
      const first = ask();
      api = first.then((found) => found !== undefined);
      this.#referrersApi.set(registry, api);
      api.catch(() => this.#referrersApi.delete(registry));
      index = await first;
    } else if (await api.catch(() => true)) {
      index = await ask();
    }
    if (index) return descriptors(parseObject(index.body, `referrers of ${digest}`).manifests, LIMITS.referrers);
    const tagged = await this.#registry.manifest(image, digest.replace(':', '-'), [MEDIA.ociIndex, ...MANIFEST_TYPES], opts);
    if (!tagged) return [];
    const doc = parseObject(tagged.body, `referrers tag of ${digest}`);
    if (Array.isArray(doc.manifests)) return descriptors(doc.manifests, LIMITS.referrers);
    // A single artifact manifest under the tag (some tools write one rather than an index).
    return [{ mediaType: tagged.mediaType, digest: tagged.digest, size: tagged.body.length, artifactType: typeof doc.artifactType === 'string' ? doc.artifactType : MEDIA.bundle, annotations: {} }];
  }
}

/**
 * Whether a referrer entry may be a Sigstore bundle: one typed as a bundle, or untyped, or typed as the OCI
 * empty descriptor. cosign 3 on a registry without the referrers API writes the referrers tag's index itself
 * and gives each entry its manifest's config type, the empty descriptor; the manifest (its artifactType and
 * its bundle layer, read next) says what it holds (docs/signatures.md#signing-images-with-cosign).
 */
function mayHoldBundle(d: Descriptor): boolean {
  const type = d.artifactType ?? MEDIA.bundle;
  return type === MEDIA.bundle || type === MEDIA.empty;
}

/** An entry whose predicate type is unknown (an untyped referrers-tag entry) may still be wanted: its statement decides. */
function isWanted(predicateType: string | undefined, types: ReadonlySet<string>): boolean {
  return predicateType === undefined || types.has(predicateType);
}

function isAttestation(d: Descriptor): boolean {
  const type = d.annotations[ANNOTATIONS.predicateType];
  return type !== undefined && type !== 'https://sigstore.dev/cosign/sign/v1';
}
