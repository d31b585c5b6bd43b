// The signatures plugin's error codes (docs/errors.md#signature-verification).
import { createError } from '../../core/index.js';

export const signatureErrors = Object.freeze({
  badKey: createError('TW_ERR_SIGNATURE_KEY', (which: string, why: string) => `cosign key ${which}: ${why}`, 400),
  badTrustedRoot: createError('TW_ERR_SIGNATURE_TRUSTED_ROOT', (path: string, why: string) => `trusted root ${path}: ${why}`, 400),
});
