// The effective options as `/v1/config` shows them (docs/interface.md §4): snake_case keys in declaration
// order, durations in Go form (`24h0m0s`), secrets as "<redacted>" when set and empty when not. Nothing
// here may ever carry a secret's value.
import { formatGoDuration } from './go-duration.js';
import type { OptionSpec } from './option.js';
import type { AppliedOptions } from './tidewatch.js';

export const REDACTED = '<redacted>';

function viewValue(spec: OptionSpec, value: unknown): unknown {
  if (spec.secret === true) {
    const set = Array.isArray(value) ? value.length > 0 : value !== '' && value !== undefined && value !== null;
    if (set) return REDACTED;
    return Array.isArray(value) ? [] : '';
  }
  if ((spec.kind === 'duration' || spec.kind === 'cooldown') && typeof value === 'number') return formatGoDuration(value);
  return Array.isArray(value) ? [...(value as unknown[])] : value;
}

/** One entry per flag (an option shared by several plugins appears once), in plugin order. */
export function optionsView(applied: readonly AppliedOptions[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { specs, values } of applied) {
    for (const [key, spec] of Object.entries(specs)) {
      const name = spec.flag.replace(/-/g, '_');
      if (!(name in out)) out[name] = viewValue(spec, values[key]);
    }
  }
  return out;
}
