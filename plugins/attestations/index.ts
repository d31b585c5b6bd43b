// The attestations plugin (`--verify-attestations`, docs/attestations.md): a gate on what the publisher proved about
// a candidate — a verified vulnerability report under `--max-severity`, verified SLSA provenance under
// `--require-provenance`. It verifies through the signatures plugin's ATTESTATION_VERIFIER service (the same keys and
// keyless identity as signatures), so it needs one of those configured: without, start-up exits 2 naming the option.
import { definePlugin, invalidOptions, STAGES } from '../../core/index.js';
import { ATTESTATION_VERIFIER } from '../../contracts/index.js';
import { FactsCache } from './facts.js';
import { reviewAttestations } from './finding.js';
import { attestationGate, needsOf, type GateRules } from './gate.js';
import { attestationOptions } from './options.js';
import { parseProvenanceRule } from './provenance.js';

export const PLUGIN_NAME = 'attestations';

export const attestationsPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: attestationOptions,
  enabled: (options) => options.verify !== 'off',
  check(options, label) {
    if (options.maxSeverity === '' && options.requireProvenance === '' && options.verify === 'warn') {
      return [`${label('verify')} is warn with neither ${label('maxSeverity')} nor ${label('requireProvenance')}: the verified facts are reported, nothing is refused`];
    }
    return undefined;
  },
  apply(core, options) {
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
  },
});

export type { AttestationsPluginOptions } from './options.js';
