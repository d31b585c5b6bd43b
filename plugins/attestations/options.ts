// The attestations gate's options (docs/attestations.md#options), declared once here with the core's option builder.
// Keys and keyless identities are the signature options' own (docs/signatures.md#options): one trust for both.
import { option, type OptionValues } from '../../core/index.js';
import { parseProvenanceRule } from './provenance.js';
import { SEVERITIES, type Severity } from './severity.js';

const group = 'Attestations';
export const MODES = ['off', 'warn', 'enforce'] as const;
export type Mode = (typeof MODES)[number];

function parseSeverity(raw: string): Severity | '' {
  const value = raw.trim().toLowerCase();
  if (value === '') return '';
  if ((SEVERITIES as readonly string[]).includes(value)) return value as Severity;
  throw new Error(`expected one of ${SEVERITIES.join(', ')}`);
}

function checkProvenance(raw: string): string {
  parseProvenanceRule(raw);
  return raw.trim();
}

export const attestationOptions = {
  verify: option.enum({
    flag: 'verify-attestations', values: MODES, default: 'off', valueName: '<off|warn|enforce>', watchtowerEnv: null, group,
    description: "Verify the candidate's in-toto attestations (cosign attest) with the signature options' keys or identity: warn applies an unattested image, enforce refuses it.",
  }),
  maxSeverity: option.custom<Severity | ''>({
    kind: 'enum', flag: 'max-severity', default: '', parse: parseSeverity, schema: { enum: ['', ...SEVERITIES] },
    valueName: '<low|medium|high|critical>', watchtowerEnv: null, group,
    description: 'Refuse a candidate whose verified vulnerability report lists a finding above this severity (the next candidate that passes is taken).',
  }),
  requireProvenance: option.string({
    flag: 'require-provenance', valueName: '<source=PATTERN,builder=PATTERN>', parse: checkProvenance, watchtowerEnv: null, group,
    description: "Refuse a candidate whose verified SLSA provenance names another source repository or builder (* within a path segment, ** across).",
  }),
};

export type AttestationOptionValues = OptionValues<typeof attestationOptions>;
export type AttestationsPluginOptions = Partial<AttestationOptionValues>;
