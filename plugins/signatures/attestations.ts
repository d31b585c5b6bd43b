// The ATTESTATION_VERIFIER service (docs/attestations.md#verification): the attestations of one candidate digest,
// found on its registry as signatures are (find.ts) and each verified under the same keys and identity.
import { errorMessage, parseImageReference } from '../../core/index.js';
import type { AttestationRead, AttestationVerifier, VerifiedAttestation } from './contracts.js';
import type { BundleTrust } from './bundle.js';
import { verifyAttestation } from './attestation-verify.js';
import type { SignatureFinder } from './find.js';

const DIGEST = /^sha256:[a-f0-9]{64}$/;
const MAX_REASONS = 8;

export function attestationVerifier(finder: SignatureFinder, trust: BundleTrust): AttestationVerifier {
  return {
    async read(image: string, digest: string, predicateTypes: readonly string[], signal?: AbortSignal): Promise<AttestationRead> {
      if (!DIGEST.test(digest)) return { verified: [], rejected: [`cannot verify "${digest}": not a sha256 digest`] };
      const repo = parseImageReference(image);
      const types = new Set(predicateTypes);
      const verified: VerifiedAttestation[] = [];
      const rejected: string[] = [];
      let blobs;
      try {
        blobs = await finder.attestations(`${repo.registry}/${repo.repository}`, repo.registry, digest, types, signal);
      } catch (err) {
        if (signal?.aborted) throw err;
        throw new Error(`cannot read the attestations of ${digest}: ${errorMessage(err)}`);
      }
      for (const blob of blobs) {
        const outcome = verifyAttestation(blob, digest, trust, types);
        if (outcome.ok) verified.push({ predicateType: outcome.predicateType, predicate: outcome.predicate, signer: outcome.by });
        else if (rejected.length < MAX_REASONS) rejected.push(outcome.why);
      }
      return { verified, rejected };
    },
  };
}
