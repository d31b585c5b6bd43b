// The signatures plugin's options (docs/signatures.md#options): the policy, the keys, the keyless identity
// and the trusted root. Declared once here with the core's option builder.
import { option, type OptionValues } from '../../core/index.js';

const group = 'Signature verification';
export const POLICIES = ['off', 'warn', 'enforce'] as const;
export type Policy = (typeof POLICIES)[number];

const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----[\s\S]+?-----END [A-Z0-9 ]+-----/g;

/**
 * `--cosign-key` values: PEM blocks given inline (a PEM holds newlines and spaces, so it is cut by its
 * BEGIN/END lines) and file paths (one per repeated flag, or separated by commas or newlines).
 */
export function parseKeyList(raw: string): string[] {
  const pems = raw.match(PEM_BLOCK) ?? [];
  const rest = raw.replace(PEM_BLOCK, '\n');
  const paths = rest.split(/[\n,]/).map((p) => p.trim()).filter((p) => p !== '');
  return [...pems, ...paths];
}

export const signatureOptions = {
  verify: option.enum({
    flag: 'verify-signatures', values: POLICIES, default: 'off', valueName: '<off|warn|enforce>', watchtowerEnv: null, group,
    description: 'Verify cosign signatures of the image an update would run: warn reports, enforce applies only verified images (label tidewatch.verify per container).',
  }),
  keys: option.list({
    flag: 'cosign-key', valueName: '<pem|file>', join: '\n', parse: parseKeyList, watchtowerEnv: null, group,
    description: 'A PEM public key (ECDSA P-256, Ed25519, RSA) or the path of a file holding one; repeat for several.',
  }),
  identity: option.string({
    flag: 'cosign-identity', valueName: '<identity>', watchtowerEnv: null, group,
    description: "Keyless: the signer's certificate identity (an e-mail or URI in its SAN), with --cosign-issuer.",
  }),
  identityRegexp: option.string({
    flag: 'cosign-identity-regexp', valueName: '<regexp>', watchtowerEnv: null, group,
    description: "Keyless: a regular expression the signer's certificate identity must match, with --cosign-issuer.",
  }),
  issuer: option.string({
    flag: 'cosign-issuer', valueName: '<url>', watchtowerEnv: null, group,
    description: "Keyless: the OIDC issuer named in the signer's certificate.",
  }),
  trustedRoot: option.path({
    flag: 'sigstore-trusted-root', watchtowerEnv: null, group,
    description: "Path of a Sigstore trusted_root.json (Fulcio CAs, timestamp authorities, Rekor keys); nothing is fetched.",
  }),
};

export type SignatureOptionValues = OptionValues<typeof signatureOptions>;
export type SignaturesPluginOptions = Partial<SignatureOptionValues>;
