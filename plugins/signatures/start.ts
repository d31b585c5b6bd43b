// The signatures plugin's start-up, loaded only when the plugin is applied (Sigstore's libraries load
// with it, never for --help): keys, trusted root, the finder on the REGISTRY_CLIENT service, the verdict
// cache, and the review and gate taps (docs/signatures.md).
import { STAGES, type TidewatchCore } from '../../core/index.js';
import { REGISTRY_CLIENT } from '../../contracts/index.js';
import { attestationVerifier } from './attestations.js';
import { SIGNATURE_VERDICTS, ATTESTATION_VERIFIER } from './contracts.js';
import { loadTrustedRoot, type BundleTrust } from './bundle.js';
import { SignatureFinder } from './find.js';
import { reviewSignature, signatureGate } from './gate.js';
import { loadKey } from './keys.js';
import type { SignatureOptionValues } from './options.js';
import { Verdicts } from './verdicts.js';

export function trustOf(options: SignatureOptionValues): BundleTrust {
  const keys = options.keys.map(loadKey);
  const identity = options.identity || (options.identityRegexp ? new RegExp(options.identityRegexp) : undefined);
  return {
    keys,
    ...(identity && options.issuer ? { keyless: { identity, issuer: options.issuer } } : {}),
    ...(options.trustedRoot ? { root: loadTrustedRoot(options.trustedRoot) } : {}),
  };
}

export function startSignatures(core: TidewatchCore, options: SignatureOptionValues, pluginName: string): void {
  const trust = trustOf(options);
  const finder = new SignatureFinder(core.services.require(REGISTRY_CLIENT));
  const verdicts = new Verdicts(finder, trust, {
    onVerdict: (image, digest, { verdict, reason }) => core.emit('signature_verification', { image, digest, result: verdict, reason }),
  });
  // A signature arriving (a webhook of its push, docs/webhooks.md#signatures-arriving) re-opens a negative verdict.
  core.services.provide(SIGNATURE_VERDICTS, { recheck: (repository, digest) => verdicts.recheck(repository, digest) });
  // The attestations gate (docs/attestations.md) verifies under the same keys and identity, through this service.
  core.services.provide(ATTESTATION_VERIFIER, attestationVerifier(finder, trust));
  core.hooks.review.tapPromise({ name: pluginName, stage: STAGES.review.verify }, (staleness, target, ctx) =>
    reviewSignature(verdicts, options.verify, staleness, target, ctx),
  );
  core.hooks.gate.tapPromise({ name: pluginName, stage: STAGES.gate.verify }, (target, staleness, ctx) =>
    signatureGate(verdicts, options.verify, target, staleness, ctx),
  );
}
