// The effective configuration as GET /v1/config shows it (decisions §4): snake_case keys in table order,
// durations in Go form (`24h0m0s`), secrets as "<redacted>" when set and empty when not. Nothing here may
// ever carry a secret's value.

import { formatGoDuration } from '../../core/go-duration.js';
import { OPTIONS } from './options.js';
import type { ResolvedConfig } from './resolve.js';

export const REDACTED = '<redacted>';

/** `http-api-endpoints` → `http_api_endpoints`. */
export function snakeName(name: string): string {
  return name.replace(/-/g, '_');
}

function viewValue(kind: string, secret: boolean, value: unknown): unknown {
  if (secret) {
    const set = Array.isArray(value) ? value.length > 0 : value !== '' && value !== undefined && value !== null;
    if (set) return REDACTED;
    return Array.isArray(value) ? [] : '';
  }
  if ((kind === 'duration' || kind === 'cooldown') && typeof value === 'number') return formatGoDuration(value);
  return Array.isArray(value) ? [...value] : value;
}

/** The body's `config` object: every option, effective value. */
export function configView(resolved: Pick<ResolvedConfig, 'config'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const values = resolved.config as unknown as Record<string, unknown>;
  for (const o of OPTIONS) {
    out[snakeName(o.name)] = viewValue(o.kind, o.secret === true, values[o.key]);
  }
  return out;
}
