// Signing images in cosign's own formats with Node's crypto (Debian has no cosign package), pushed to the
// local registry as cosign pushes them (docs/signatures.md):
//   - legacy: the `sha256-<hex>.sig` tag, an OCI manifest whose layer is the simple-signing payload with
//     the signature (base64) in its `dev.cosignproject.cosign/signature` annotation;
//   - v3 bundles: an OCI artifact manifest (artifactType and layer a Sigstore bundle v0.3 holding a DSSE
//     envelope around an in-toto statement) listed in the referrers tag `sha256-<hex>` (an OCI index), the
//     fallback cosign uses on registries without the referrers API.
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto'
import { pushBlob, putManifest, sha256 } from './images.js'

export const COSIGN = {
  simpleSigning: 'application/vnd.dev.cosign.simplesigning.v1+json',
  signatureAnnotation: 'dev.cosignproject.cosign/signature',
  bundle: 'application/vnd.dev.sigstore.bundle.v0.3+json',
  signPredicate: 'https://sigstore.dev/cosign/sign/v1',
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  empty: 'application/vnd.oci.empty.v1+json',
} as const

export type KeyKind = 'ecdsa' | 'ed25519' | 'rsa'

export interface TestKey {
  readonly kind: KeyKind
  readonly privateKey: KeyObject
  readonly publicKey: KeyObject
  /** SPKI PEM, what `--cosign-key` takes */
  readonly pem: string
}

export function makeKey(kind: KeyKind = 'ecdsa'): TestKey {
  const pair =
    kind === 'ecdsa'
      ? generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
      : kind === 'ed25519'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('rsa', { modulusLength: 2048 })
  return { kind, ...pair, pem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() }
}

/** cosign signs ECDSA and RSA (PKCS#1 v1.5) over SHA-256, Ed25519 over the message itself. */
export function signWith(key: TestKey, data: Buffer): Buffer {
  return sign(key.kind === 'ed25519' ? null : 'sha256', data, key.privateKey)
}

export interface Target {
  /** host:port */
  registry: string
  repo: string
  /** the image digest the signature is stored for */
  digest: string
}

/** cosign's simple-signing payload for `digest` of `registry/repo`. */
export function simpleSigningPayload(reference: string, digest: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      critical: { identity: { 'docker-reference': reference }, image: { 'docker-manifest-digest': digest }, type: 'cosign container image signature' },
      optional: null,
    }),
  )
}

function descriptor(mediaType: string, body: Buffer, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { mediaType, digest: sha256(body), size: body.length, ...extra }
}

async function pushJsonBlob(t: Target, body: Buffer): Promise<void> {
  await pushBlob(t.registry, t.repo, body, sha256(body))
}

export interface LegacyOptions {
  /** the digest the payload names (default: the target's) */
  signedDigest?: string
  /** replace the payload after signing it: a tampered signature */
  tamper?: boolean
  /** more layer annotations from the raw signature (keyless: certificate, RFC 3161 timestamp) */
  annotations?: (signature: Buffer) => Record<string, string>
}

/** Pushes a legacy `.sig` manifest with one signature layer per key; returns the manifest digest. */
export async function signLegacy(t: Target, keys: readonly TestKey[], options: LegacyOptions = {}): Promise<string> {
  const layers: Record<string, unknown>[] = []
  for (const key of keys) {
    const payload = simpleSigningPayload(`${t.registry}/${t.repo}`, options.signedDigest ?? t.digest)
    const raw = signWith(key, payload)
    const signature = raw.toString('base64')
    const stored = options.tamper ? Buffer.from(payload.toString('utf8').replace('"optional":null', '"optional":{"tampered":"yes"}')) : payload
    await pushJsonBlob(t, stored)
    layers.push(descriptor(COSIGN.simpleSigning, stored, { annotations: { [COSIGN.signatureAnnotation]: signature, ...options.annotations?.(raw) } }))
  }
  const config = Buffer.from(
    JSON.stringify({
      architecture: '',
      created: '0001-01-01T00:00:00Z',
      history: [{ created: '0001-01-01T00:00:00Z' }],
      os: '',
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l['digest']) },
      config: {},
    }),
  )
  await pushJsonBlob(t, config)
  const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: COSIGN.ociManifest, config: descriptor(COSIGN.ociConfig, config), layers }))
  return putManifest(t.registry, t.repo, `${t.digest.replace(':', '-')}.sig`, manifest, COSIGN.ociManifest)
}

/** DSSE's pre-authentication encoding: what the envelope's signature covers. */
export function pae(payloadType: string, payload: Buffer): Buffer {
  const type = Buffer.from(payloadType)
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${payload.length} `), payload])
}

export interface BundleOptions {
  predicateType?: string
  /** the digest the statement's subject names (default: the target's) */
  subjectDigest?: string
  /** keyless: the certificate (DER) goes in the bundle instead of a key hint */
  certificate?: Buffer
  /** keyless: RFC 3161 timestamp tokens (DER) over the signature */
  timestamp?: (signature: Buffer) => Buffer
  /** the statement's predicate (default `{}`) */
  predicate?: unknown
  /** the statement's exact bytes, instead of one made from the options (hostile payloads) */
  statement?: Buffer
}

/** A Sigstore bundle v0.3 (JSON) signed by `key` over an in-toto statement for the target's digest. */
export function makeBundle(t: Target, key: TestKey, options: BundleOptions = {}): Record<string, unknown> {
  const hex = (options.subjectDigest ?? t.digest).replace(/^sha256:/, '')
  const statement =
    options.statement ??
    Buffer.from(
      JSON.stringify({
        _type: 'https://in-toto.io/Statement/v1',
        subject: [{ name: `${t.registry}/${t.repo}`, digest: { sha256: hex } }],
        predicateType: options.predicateType ?? COSIGN.signPredicate,
        predicate: options.predicate ?? {},
      }),
    )
  const payloadType = 'application/vnd.in-toto+json'
  const signature = signWith(key, pae(payloadType, statement))
  const keyid = createHash('sha256').update(key.publicKey.export({ type: 'spki', format: 'der' })).digest('base64')
  const material: Record<string, unknown> = options.certificate
    ? { certificate: { rawBytes: options.certificate.toString('base64') } }
    : { publicKey: { hint: keyid } }
  material['tlogEntries'] = []
  material['timestampVerificationData'] = {
    rfc3161Timestamps: options.timestamp ? [{ signedTimestamp: options.timestamp(signature).toString('base64') }] : [],
  }
  return {
    mediaType: COSIGN.bundle,
    verificationMaterial: material,
    dsseEnvelope: { payload: statement.toString('base64'), payloadType, signatures: [{ sig: signature.toString('base64'), keyid: '' }] },
  }
}

/**
 * Pushes bundles as cosign v3 does on a registry without the referrers API: each an artifact manifest
 * (subject: the image), all listed in the referrers tag's OCI index. Returns the index digest.
 */
export async function pushBundles(t: Target, bundles: readonly { bundle: Record<string, unknown>; predicateType?: string }[], subjectMediaType: string): Promise<string> {
  const empty = Buffer.from('{}')
  await pushJsonBlob(t, empty)
  const entries: Record<string, unknown>[] = []
  for (const { bundle, predicateType } of bundles) {
    const body = Buffer.from(JSON.stringify(bundle))
    await pushJsonBlob(t, body)
    const annotations = { 'dev.sigstore.bundle.content': 'dsse-envelope', 'dev.sigstore.bundle.predicateType': predicateType ?? COSIGN.signPredicate }
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: COSIGN.ociManifest,
        artifactType: COSIGN.bundle,
        config: descriptor(COSIGN.empty, empty),
        layers: [descriptor(COSIGN.bundle, body)],
        subject: { mediaType: subjectMediaType, digest: t.digest, size: 0 },
        annotations,
      }),
    )
    const digest = await putManifest(t.registry, t.repo, sha256(manifest), manifest, COSIGN.ociManifest)
    entries.push({ mediaType: COSIGN.ociManifest, digest, size: manifest.length, artifactType: COSIGN.bundle, annotations })
  }
  const index = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: COSIGN.ociIndex, manifests: entries }))
  return putManifest(t.registry, t.repo, t.digest.replace(':', '-'), index, COSIGN.ociIndex)
}
