// The attestations plugin (`--verify-attestations`, docs/attestations.md): a gate on what the publisher proved about
// a candidate — a verified vulnerability report under `--max-severity`, verified SLSA provenance under
// `--require-provenance`. It verifies through the signatures plugin's ATTESTATION_VERIFIER service (the same keys and
// keyless identity as signatures), so it needs one of those configured: without, start-up exits 2 naming the option.
// This module declares the options; the gate (start.ts) loads when --verify-attestations turns it on.
import { definePlugin } from '../../core/index.js';
import { attestationOptions } from './options.js';

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
  async apply(core, options) {
    const { startAttestations } = await import('./start.js');
    startAttestations(core, options);
  },
});

export type { AttestationsPluginOptions } from './options.js';
