// The configuration layer's error is core's ConfigError (code TW_ERR_CONFIG, exit code 2, one line naming
// the option). This module only formats values for its messages.
export { ConfigError } from '../../core/errors.js';

/** A value quoted for an error message: JSON-escaped (so it stays on one line) and shortened if huge. */
export function quoteValue(value: string): string {
  const max = 200;
  const shown = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(shown);
}
