// The signatures plugin's contract with other plugins (docs/plugins.md#contracts): its service key and type
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
