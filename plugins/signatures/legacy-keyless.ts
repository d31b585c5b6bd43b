// cosign's legacy keyless signatures (docs/signatures.md#keyless): a `.sig` layer whose annotations carry
// the Fulcio certificate (`dev.sigstore.cosign/certificate`, PEM) and an RFC 3161 timestamp over the
// signature (`dev.sigstore.cosign/rfc3161timestamp`, JSON with `SignedRFC3161Timestamp`). They are put in
// the shape of a Sigstore message-signature bundle and checked by the same keyless verifier as the bundles
// (the certificate chained to the trusted root, identity, issuer, timestamp). A Rekor inclusion promise
// alone (`dev.sigstore.cosign/bundle`) does not place the signature in time here: add a timestamp.
import { createHash, X509Certificate } from 'node:crypto';
import { errorMessage } from '../../core/index.js';
import { verifyKeylessMessage, type BundleTrust } from './bundle.js';
import { ANNOTATIONS, type LegacySignature } from './find.js';
import type { Outcome } from './simple-signing.js';

export const TIMESTAMP_ANNOTATION = 'dev.sigstore.cosign/rfc3161timestamp';
const MAX_ANNOTATION_CHARS = 64 * 1024;

/** The layer's keyless material as a bundle v0.3 (JSON), or why it cannot be one. */
export function legacyKeylessBundle(signature: LegacySignature): { bundle: unknown } | { why: string } {
  const pem = signature.annotations[ANNOTATIONS.certificate] ?? '';
  const stamp = signature.annotations[TIMESTAMP_ANNOTATION];
  if (pem.length > MAX_ANNOTATION_CHARS || (stamp?.length ?? 0) > MAX_ANNOTATION_CHARS) return { why: 'a keyless annotation over its bound' };
  let der: Buffer;
  try {
    der = Buffer.from(new X509Certificate(pem).raw);
  } catch (err) {
    return { why: `the legacy certificate does not parse: ${errorMessage(err)}` };
  }
  const rfc3161Timestamps: { signedTimestamp: string }[] = [];
  if (stamp !== undefined) {
    try {
      const parsed = JSON.parse(stamp) as { SignedRFC3161Timestamp?: unknown };
      if (typeof parsed.SignedRFC3161Timestamp === 'string') rfc3161Timestamps.push({ signedTimestamp: parsed.SignedRFC3161Timestamp });
    } catch {
      return { why: 'the legacy RFC 3161 timestamp annotation is not JSON' };
    }
  }
  return {
    bundle: {
      mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      verificationMaterial: { certificate: { rawBytes: der.toString('base64') }, tlogEntries: [], timestampVerificationData: { rfc3161Timestamps } },
      messageSignature: {
        messageDigest: { algorithm: 'SHA2_256', digest: createHash('sha256').update(signature.payload).digest('base64') },
        signature: signature.annotations[ANNOTATIONS.signature] ?? '',
      },
    },
  };
}

/** A legacy keyless layer under the configured identity; the payload's digest is checked by the caller. */
export function verifyLegacyKeyless(signature: LegacySignature, trust: BundleTrust): Outcome {
  const made = legacyKeylessBundle(signature);
  if ('why' in made) return { ok: false, why: made.why };
  const outcome = verifyKeylessMessage(made.bundle, signature.payload, trust);
  return outcome.ok ? { ok: true, by: outcome.by.replace('(Sigstore bundle)', '(legacy .sig, keyless)') } : outcome;
}
