// Verifying one attestation of a candidate digest (docs/attestations.md#verification): an in-toto statement in a DSSE
// envelope, signed by a configured key or keyless identity exactly as signatures are (bundle.ts: Sigstore's own
// @sigstore/verify). cosign 3 attaches a Sigstore bundle; the legacy `.att` tag holds the bare envelope with the
// keyless material in its layer's annotations, put here in a bundle's shape so that one verifier judges both.
// The statement must name the candidate as its subject and carry one of the predicate types asked for.
import { bundleFromJSON, type Bundle } from '@sigstore/bundle';
import { toSignedEntity, type SignedEntity } from '@sigstore/verify';
import { errorMessage } from '../../core/index.js';
import { statementOf, subjectMismatch, verifyKeyless, verifyUnderKeys, type BundleTrust } from './bundle.js';
import { ANNOTATIONS, MEDIA, type AttestationBlob } from './find.js';
import { parseBoundedJson } from './json-depth.js';
import { TIMESTAMP_ANNOTATION } from './legacy-keyless.js';

/** Nesting allowed in a statement (scanner reports nest about ten deep; SARIF a little more). */
export const MAX_STATEMENT_DEPTH = 64;
const MAX_ANNOTATION_CHARS = 64 * 1024;

export type AttestationOutcome =
  | { readonly ok: true; readonly by: string; readonly predicateType: string; readonly predicate: unknown }
  | { readonly ok: false; readonly why: string };

const bounded = (text: string) => parseBoundedJson(text, MAX_STATEMENT_DEPTH);

/** A legacy `.att` layer (a bare DSSE envelope) in the shape of a bundle v0.3, with its keyless material if any. */
function legacyAsBundle(envelope: Record<string, unknown>, annotations: Readonly<Record<string, string>>): unknown {
  const pem = annotations[ANNOTATIONS.certificate];
  const stamp = annotations[TIMESTAMP_ANNOTATION];
  if ((pem?.length ?? 0) > MAX_ANNOTATION_CHARS || (stamp?.length ?? 0) > MAX_ANNOTATION_CHARS) throw new Error('a keyless annotation over its bound');
  const rfc3161Timestamps: { signedTimestamp: string }[] = [];
  if (stamp !== undefined) {
    const parsed = JSON.parse(stamp) as { SignedRFC3161Timestamp?: unknown };
    if (typeof parsed.SignedRFC3161Timestamp === 'string') rfc3161Timestamps.push({ signedTimestamp: parsed.SignedRFC3161Timestamp });
  }
  const certificate = pem === undefined ? undefined : pemToBase64Der(pem);
  return {
    mediaType: MEDIA.bundle,
    verificationMaterial: {
      ...(certificate ? { certificate: { rawBytes: certificate } } : { publicKey: { hint: '' } }),
      tlogEntries: [],
      timestampVerificationData: { rfc3161Timestamps },
    },
    dsseEnvelope: envelope,
  };
}

function pemToBase64Der(pem: string): string {
  const body = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(pem)?.[1];
  if (!body) throw new Error('the certificate annotation holds no PEM certificate');
  return body.replace(/\s+/g, '');
}

function signerOf(entity: SignedEntity, trust: BundleTrust): { ok: true; by: string } | { ok: false; why: string } {
  return entity.key.$case === 'public-key' ? verifyUnderKeys(entity, trust) : verifyKeyless(entity, trust);
}

/** One attestation's outcome for `candidate`, accepting only the predicate types in `types`. */
export function verifyAttestation(blob: AttestationBlob, candidate: string, trust: BundleTrust, types: ReadonlySet<string>): AttestationOutcome {
  if ('why' in blob) return { ok: false, why: blob.why };
  let bundle: Bundle;
  let entity: SignedEntity;
  try {
    const doc = bounded(blob.body.toString('utf8'));
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error('not a JSON object');
    bundle = bundleFromJSON(blob.format === 'legacy' ? legacyAsBundle(doc as Record<string, unknown>, blob.annotations) : doc);
    entity = toSignedEntity(bundle);
  } catch (err) {
    return { ok: false, why: `a malformed ${blob.format === 'legacy' ? 'legacy .att envelope' : 'Sigstore bundle'}: ${errorMessage(err)}` };
  }
  const statement = statementOf(bundle, bounded);
  if ('why' in statement) return { ok: false, why: statement.why };
  if (typeof statement.predicateType !== 'string' || !types.has(statement.predicateType)) {
    return { ok: false, why: `predicate type ${String(statement.predicateType).slice(0, 200)} was not asked for` };
  }
  const mismatch = subjectMismatch(statement, candidate);
  if (mismatch) return { ok: false, why: mismatch };
  const signer = signerOf(entity, trust);
  if (!signer.ok) return { ok: false, why: signer.why.replace('the bundle', 'the attestation').replace('a key-signed bundle', 'a key-signed attestation') };
  const by = signer.by.replace('(Sigstore bundle)', blob.format === 'legacy' ? '(legacy .att)' : '(Sigstore bundle)');
  return { ok: true, by, predicateType: statement.predicateType, predicate: statement.predicate };
}
