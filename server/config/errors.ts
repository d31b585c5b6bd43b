// The one error type of the configuration layer. The server maps it to exit code 2 (decisions §2) and prints
// its message as is, so the message is always a single line naming the option, the value received (or
// `<redacted>` for secrets) and what is accepted.

export class ConfigError extends Error {
  readonly code = 'TW_ERR_CONFIG';
  /** The process exit code decisions §2 gives to every configuration error. */
  readonly exitCode = 2;
  /** Kebab-case option name the error is about, when there is one. */
  readonly option: string | undefined;

  constructor(message: string, option?: string) {
    // Belt and braces: whatever a parser put in, the printed message stays on one line.
    super(message.replace(/\s*[\r\n]+\s*/g, ' '));
    this.name = 'ConfigError';
    this.option = option;
  }
}

/** A value quoted for an error message: JSON-escaped (so it stays on one line) and shortened if huge. */
export function quoteValue(value: string): string {
  const max = 200;
  const shown = value.length > max ? `${value.slice(0, max)}…` : value;
  return JSON.stringify(shown);
}
