// cosign's legacy signatures (docs/signatures.md#signing-images-with-cosign): a simple-signing payload (JSON naming
// the signed manifest digest) in a layer of the `sha256-<hex>.sig` tag, the signature over the payload's
// exact bytes in the layer's `dev.cosignproject.cosign/signature` annotation (base64). Verified with
// Node's crypto under the configured keys.
import { ANNOTATIONS, type LegacySignature } from './find.js';
import { verifiesWith, type CosignKey } from './keys.js';

export const SIMPLE_SIGNING_TYPE = 'cosign container image signature';

/** One signature's outcome: accepted (with who), or rejected and why. */
export type Outcome = { readonly ok: true; readonly by: string } | { readonly ok: false; readonly why: string; readonly attestation?: boolean };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The payload's `critical.image.docker-manifest-digest`, or why it has none. */
export function signedDigest(payload: Buffer): { digest: string } | { why: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(payload.toString('utf8'));
  } catch {
    return { why: 'the simple-signing payload is not JSON' };
  }
  const critical = (doc as { critical?: { type?: unknown; image?: { 'docker-manifest-digest'?: unknown } } } | null)?.critical;
  if (critical?.type !== SIMPLE_SIGNING_TYPE) return { why: `the payload's type is not "${SIMPLE_SIGNING_TYPE}"` };
  const digest = critical.image?.['docker-manifest-digest'];
  if (typeof digest !== 'string') return { why: 'the payload names no docker-manifest-digest' };
  return { digest };
}

/**
 * Accepts only when a configured key (or, for a layer carrying a certificate, the keyless identity)
 * verifies the signature over the payload AND the payload names `candidate`: a valid signature over
 * another image's digest is not this image's.
 */
export function verifyLegacy(signature: LegacySignature, candidate: string, keys: readonly CosignKey[], keyless?: (s: LegacySignature) => Outcome): Outcome {
  const encoded = signature.annotations[ANNOTATIONS.signature] ?? '';
  if (!BASE64.test(encoded)) return { ok: false, why: 'the signature annotation is not base64' };
  const raw = Buffer.from(encoded, 'base64');
  const key = keys.find((k) => verifiesWith(k, signature.payload, raw));
  let by: string;
  if (key) by = `key ${key.kind} ${key.id.slice(0, 12)} (legacy .sig)`;
  else if (signature.annotations[ANNOTATIONS.certificate] !== undefined && keyless) {
    const outcome = keyless(signature);
    if (!outcome.ok) return outcome;
    by = outcome.by;
  } else return { ok: false, why: 'no configured key verifies the legacy signature' };
  const signed = signedDigest(signature.payload);
  if ('why' in signed) return { ok: false, why: signed.why };
  if (signed.digest !== candidate) return { ok: false, why: `the signature names ${signed.digest}, not ${candidate}` };
  return { ok: true, by };
}
