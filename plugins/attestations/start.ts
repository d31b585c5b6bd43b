// The attestations gate at work (docs/attestations.md), loaded when --verify-attestations is not off (its index
// declares the options only, docs/plugins.md#loading-code-at-first-use): the facts cache over the signatures
// plugin's ATTESTATION_VERIFIER, the review tap that shows them and the gate that judges them.
import { invalidOptions, STAGES, type TidewatchCore } from '../../core/index.js';
import { ATTESTATION_VERIFIER } from '../../contracts/index.js';
import { FactsCache } from './facts.js';
import { reviewAttestations } from './finding.js';
import { attestationGate, needsOf, type GateRules } from './gate.js';
import { PLUGIN_NAME } from './index.js';
import type { AttestationOptionValues } from './options.js';
import { parseProvenanceRule } from './provenance.js';

export function startAttestations(core: TidewatchCore, options: AttestationOptionValues): void {
  const verifier = core.services.get(ATTESTATION_VERIFIER);
  if (!verifier) {
    throw invalidOptions('verify-attestations', '--verify-attestations needs --cosign-key, or --cosign-identity (or --cosign-identity-regexp) with --cosign-issuer and --sigstore-trusted-root');
  }
  const provenance = parseProvenanceRule(options.requireProvenance);
  const rules: GateRules = {
    mode: options.verify === 'enforce' ? 'enforce' : 'warn',
    ...(options.maxSeverity !== '' ? { maxSeverity: options.maxSeverity } : {}),
    ...(provenance ? { provenance } : {}),
  };
  const cache = new FactsCache(verifier, { needs: needsOf(rules) });
  // The facts are shown on the stale answer (docs/attestations.md#what-is-shown), and the gate judges the same facts.
  core.hooks.review.tapPromise({ name: PLUGIN_NAME, stage: STAGES.review.verify }, (staleness, target, ctx) => reviewAttestations(cache, rules, staleness, target, ctx));
  core.hooks.gate.tapPromise({ name: PLUGIN_NAME, stage: STAGES.gate.verify }, (target, staleness, ctx) => attestationGate(cache, rules, target, staleness, ctx));
}
