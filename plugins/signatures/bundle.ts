// cosign v3's Sigstore bundles (docs/signatures.md#signing-images-with-cosign): a DSSE envelope around an in-toto
// statement whose subject is the signed image digest and whose predicate type is cosign's signature type;
// anything else (an attestation: SBOM, provenance…) is not a signature. Key-based bundles are checked
// under each configured key, keyless ones against the trusted root (a Fulcio-style chain, RFC 3161
// timestamps or transparency-log entries, the identity and issuer in the certificate), with Sigstore's
// own @sigstore/verify.
import { readFileSync } from 'node:fs';
import { bundleFromJSON, type Bundle } from '@sigstore/bundle';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { Verifier, toSignedEntity, toTrustMaterial, type SignedEntity, type VerificationPolicy } from '@sigstore/verify';
import { errorMessage } from '../../core/index.js';
import { signatureErrors } from './errors.js';
import type { CosignKey } from './keys.js';
import type { Outcome } from './simple-signing.js';

export const COSIGN_SIGN_PREDICATE = 'https://sigstore.dev/cosign/sign/v1';
const IN_TOTO = 'application/vnd.in-toto+json';
const STATEMENT_TYPES = new Set(['https://in-toto.io/Statement/v1', 'https://in-toto.io/Statement/v0.1']);
const MAX_ROOT_BYTES = 1024 * 1024;
const EMPTY_ROOT = {
  mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
  tlogs: [],
  certificateAuthorities: [],
  ctlogs: [],
  timestampAuthorities: [],
};

export interface KeylessIdentity {
  /** The certificate's SAN: exactly this string, or matching this expression. */
  readonly identity: string | RegExp;
  readonly issuer: string;
}

export interface BundleTrust {
  readonly keys: readonly CosignKey[];
  readonly keyless?: KeylessIdentity;
  /** Parsed from --sigstore-trusted-root; without it key bundles are checked on the signature alone. */
  readonly root?: TrustedRoot;
}

export function loadTrustedRoot(path: string): TrustedRoot {
  try {
    const data = readFileSync(path);
    if (data.length > MAX_ROOT_BYTES) throw new Error(`larger than ${MAX_ROOT_BYTES} bytes`);
    return TrustedRoot.fromJSON(JSON.parse(data.toString('utf8')));
  } catch (err) {
    throw signatureErrors.badTrustedRoot(path, errorMessage(err));
  }
}

/** An in-toto statement as read from a DSSE envelope (not yet trusted: the envelope's signature decides). */
export interface InTotoStatement {
  readonly _type?: unknown;
  readonly predicateType?: unknown;
  readonly subject?: unknown;
  readonly predicate?: unknown;
}

/** The in-toto statement a bundle's DSSE envelope carries, or why it carries none. */
export function statementOf(bundle: Bundle, parse: (text: string) => unknown = JSON.parse): InTotoStatement | { why: string } {
  if (bundle.content.$case !== 'dsseEnvelope') return { why: 'the bundle holds no DSSE envelope (cosign signs images with one)' };
  const envelope = bundle.content.dsseEnvelope;
  if (envelope.payloadType !== IN_TOTO) return { why: `the DSSE payload type is ${envelope.payloadType}, not ${IN_TOTO}` };
  let statement: unknown;
  try {
    statement = parse(envelope.payload.toString('utf8'));
  } catch (err) {
    return { why: `the in-toto statement is not JSON${err instanceof Error && !(err instanceof SyntaxError) ? ` (${err.message})` : ''}` };
  }
  const s = statement as InTotoStatement | null;
  if (typeof s !== 'object' || s === null || typeof s._type !== 'string' || !STATEMENT_TYPES.has(s._type)) return { why: 'the DSSE payload is not an in-toto statement' };
  return s;
}

/** Why the statement's subjects do not name `candidate`, or undefined when one does. */
export function subjectMismatch(statement: InTotoStatement, candidate: string): string | undefined {
  const hex = candidate.slice('sha256:'.length);
  const subjects = Array.isArray(statement.subject) ? (statement.subject as { digest?: { sha256?: unknown } }[]).slice(0, 64) : [];
  if (subjects.some((s) => s?.digest?.sha256 === hex)) return undefined;
  const named = subjects.map((s) => s?.digest?.sha256).find((d) => typeof d === 'string');
  return `the statement's subject is ${named ? `sha256:${String(named)}` : 'no sha256 digest'}, not ${candidate}`;
}

/** The statement's subject digest check and predicate type, before any cryptography. */
function checkStatement(bundle: Bundle, candidate: string): Outcome | undefined {
  const statement = statementOf(bundle);
  if ('why' in statement) return { ok: false, why: statement.why };
  if (statement.predicateType !== COSIGN_SIGN_PREDICATE) {
    return { ok: false, attestation: true, why: `an attestation (${String(statement.predicateType)}), not a signature` };
  }
  const mismatch = subjectMismatch(statement, candidate);
  return mismatch ? { ok: false, why: mismatch } : undefined;
}

export function verifyUnderKeys(entity: SignedEntity, trust: BundleTrust): Outcome {
  if (trust.keys.length === 0) return { ok: false, why: 'a key-signed bundle, and no --cosign-key is configured' };
  // Without a trusted root the log entries and timestamps cannot be checked: the key's signature decides
  // alone (cosign verify --key --insecure-ignore-tlog); with one, every entry the bundle carries must verify.
  const checked = trust.root ? entity : { ...entity, tlogEntries: [], timestamps: [] };
  let last = 'no configured key verifies the bundle';
  for (const key of trust.keys) {
    const material = toTrustMaterial(trust.root ?? TrustedRoot.fromJSON(EMPTY_ROOT), () => ({ publicKey: key.key, validFor: () => true }));
    try {
      new Verifier(material, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(checked);
      return { ok: true, by: `key ${key.kind} ${key.id.slice(0, 12)} (Sigstore bundle)` };
    } catch (err) {
      last = errorMessage(err);
    }
  }
  return { ok: false, why: `no configured key verifies the bundle (${last})` };
}

export function verifyKeyless(entity: SignedEntity, trust: BundleTrust): Outcome {
  if (!trust.keyless || !trust.root) return { ok: false, why: 'a keyless bundle, and no --cosign-identity with --sigstore-trusted-root is configured' };
  const root = trust.root;
  const material = toTrustMaterial(root);
  // One timestamp at least (an RFC 3161 one from a timestamp authority, or a log entry's): the certificate
  // must have been valid when it signed. Log entries are required when the root names logs and no TSA.
  const options = {
    timestampThreshold: 1,
    tlogThreshold: root.tlogs.length > 0 && root.timestampAuthorities.length === 0 ? 1 : 0,
    ctlogThreshold: root.ctlogs.length > 0 ? 1 : 0,
  };
  const policy: VerificationPolicy = { subjectAlternativeName: trust.keyless.identity, extensions: { issuer: trust.keyless.issuer } };
  try {
    const signer = new Verifier(material, options).verify(entity, policy);
    return { ok: true, by: `${signer.identity?.subjectAlternativeName ?? 'keyless'} via ${trust.keyless.issuer} (Sigstore bundle)` };
  } catch (err) {
    return { ok: false, why: `the keyless bundle does not verify: ${errorMessage(err)}` };
  }
}

/** A keyless message-signature bundle over `artifact` (cosign's legacy keyless layers, legacy-keyless.ts). */
export function verifyKeylessMessage(json: unknown, artifact: Buffer, trust: BundleTrust): Outcome {
  let entity: SignedEntity;
  try {
    entity = toSignedEntity(bundleFromJSON(json), artifact);
  } catch (err) {
    return { ok: false, why: `malformed keyless material: ${errorMessage(err)}` };
  }
  return verifyKeyless(entity, trust);
}

/** One bundle's outcome for `candidate`. */
export function verifyBundle(json: unknown, candidate: string, trust: BundleTrust): Outcome {
  let bundle: Bundle;
  let entity: SignedEntity;
  try {
    bundle = bundleFromJSON(json);
    entity = toSignedEntity(bundle);
  } catch (err) {
    return { ok: false, why: `a malformed Sigstore bundle: ${errorMessage(err)}` };
  }
  const statement = checkStatement(bundle, candidate);
  if (statement) return statement;
  return entity.key.$case === 'public-key' ? verifyUnderKeys(entity, trust) : verifyKeyless(entity, trust);
}
