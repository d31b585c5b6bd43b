// The signatures plugin (`--verify-signatures`, label `tidewatch.verify`): verifies the cosign signatures
// of the exact digest an update would run (docs/signatures.md). It reaches registries only through the
// REGISTRY_CLIENT service the registry plugin provides. Applied when a policy or a key/identity is set
// (a label may then turn verification on per container); a policy without any key or identity exits 2.
import { definePlugin, errorMessage, invalidOptions } from '../../core/index.js';
import { REGISTRY_CLIENT } from '../../contracts/index.js';
import { loadKey } from './keys.js';
import { signatureOptions } from './options.js';

export const PLUGIN_NAME = 'signatures';

export const signaturesPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: signatureOptions,
  requires: [REGISTRY_CLIENT],
  enabled: (options) =>
    options.verify !== 'off' || options.keys.length > 0 || options.identity !== '' || options.identityRegexp !== '',
  check(options, label) {
    const keyless = options.identity !== '' || options.identityRegexp !== '';
    if (options.identity !== '' && options.identityRegexp !== '') {
      throw invalidOptions('cosign-identity-regexp', `${label('identityRegexp')} and ${label('identity')} exclude each other`);
    }
    if (options.identityRegexp !== '') {
      try {
        new RegExp(options.identityRegexp);
      } catch {
        throw invalidOptions('cosign-identity-regexp', `invalid regular expression for ${label('identityRegexp')}`);
      }
    }
    if (keyless && options.issuer === '') throw invalidOptions('cosign-issuer', `keyless verification needs ${label('issuer')}`);
    if (keyless && options.trustedRoot === '') throw invalidOptions('sigstore-trusted-root', `keyless verification needs ${label('trustedRoot')}`);
    for (const key of options.keys) {
      try {
        loadKey(key);
      } catch (err) {
        throw invalidOptions('cosign-key', `invalid value for ${label('keys')}: ${errorMessage(err)}`);
      }
    }
    if (options.verify !== 'off' && options.keys.length === 0 && !keyless) {
      throw invalidOptions('cosign-key', `${label('verify')} needs --cosign-key, or --cosign-identity (or --cosign-identity-regexp) with --cosign-issuer`);
    }
  },
  async apply(core, options) {
    const { startSignatures } = await import('./start.js');
    startSignatures(core, options, PLUGIN_NAME);
  },
});

export type { SignaturesPluginOptions } from './options.js';
