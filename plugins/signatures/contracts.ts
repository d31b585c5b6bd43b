// The signatures plugin's contract with other plugins (docs/plugins.md#contracts): its verdicts (webhooks
// forget one when a signature arrives) and its attestation reader (the attestations gate). Keys and types
// live here, with the plugin that provides them, and reach other plugins and third parties through the
// contracts entry (contracts/index.ts, `tidewatch/contracts`), never by importing this plugin.
import { defineService, type ServiceKey } from '../../core/index.js';

/**
 * The signature verdicts of the signatures plugin (docs/signatures.md#verdicts). `recheck` forgets a negative
 * verdict (`unsigned`, `invalid`) on one digest of one repository (`registry/repository`, as
 * repositoryName() writes it), so that the next run verifies it again: a signature arrived for it
 * (docs/webhooks.md#signatures-arriving). Returns whether a verdict was forgotten.
 */
export interface SignatureVerdicts {
  recheck(repository: string, digest: string): boolean;
}
export const SIGNATURE_VERDICTS: ServiceKey<SignatureVerdicts> = defineService<SignatureVerdicts>('signature-verdicts');

/**
 * The in-toto attestations attached to a candidate digest (`cosign attest`), verified under the signature options'
 * keys and keyless identity; provided by the signatures plugin, read by the attestations gate (docs/attestations.md).
 * Nothing is cached here: the reader keeps what it derives, by digest.
 */
export interface VerifiedAttestation {
  readonly predicateType: string;
  /** The statement's predicate as parsed (untrusted in shape: the reader checks every field it uses). */
  readonly predicate: unknown;
  /** Who signed it: `key ecdsa-p256 0123abcd… (Sigstore bundle)`, or the keyless identity. */
  readonly signer: string;
}

export interface AttestationRead {
  readonly verified: readonly VerifiedAttestation[];
  /** Why each attestation that was found but not accepted was refused (bounded, unsigned, another subject…). */
  readonly rejected: readonly string[];
}

export interface AttestationVerifier {
  read(image: string, digest: string, predicateTypes: readonly string[], signal?: AbortSignal): Promise<AttestationRead>;
}

export const ATTESTATION_VERIFIER: ServiceKey<AttestationVerifier> = defineService<AttestationVerifier>('attestation-verifier');
