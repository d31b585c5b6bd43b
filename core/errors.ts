// Errors as codes, fastify-style: every error the core raises has a stable `code`, a message and the
// HTTP status an API layer should map it to. The table is documented in docs/errors.md.

export class TidewatchError extends Error {
  readonly code: string;
  readonly statusCode: number;

  constructor(code: string, message: string, statusCode: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TidewatchError';
    this.code = code;
    this.statusCode = statusCode;
  }
}

type ErrorFactory<A extends unknown[]> = ((...args: A) => TidewatchError) & { readonly code: string };

/** `createError('TW_ERR_X', (a) => message, status)` gives a factory whose errors carry the code. */
export function createError<A extends unknown[]>(
  code: string,
  message: (...args: A) => string,
  statusCode: number,
): ErrorFactory<A> {
  const factory = (...args: A) => new TidewatchError(code, message(...args), statusCode);
  return Object.assign(factory, { code });
}

export const errors = Object.freeze({
  busy: createError('TW_ERR_BUSY', () => 'another update is already running', 429),
  aborted: createError('TW_ERR_ABORTED', (why: string) => why, 503),
  timeout: createError(
    'TW_ERR_TIMEOUT',
    (kind: string, duration: string) => `${kind} timed out after ${duration}`,
    503,
  ),
  pluginOptions: createError(
    'TW_ERR_PLUGIN_OPTIONS',
    (plugin: string, detail: string) => `invalid options for plugin ${plugin}: ${detail}`,
    500,
  ),
  pluginFailed: createError(
    'TW_ERR_PLUGIN',
    (plugin: string, hook: string, detail: string) => `plugin ${plugin} failed in ${hook}: ${detail}`,
    500,
  ),
  noApplier: createError(
    'TW_ERR_NO_APPLIER',
    (target: string, runtime: string) => `no plugin applies updates to ${target} (runtime ${runtime})`,
    500,
  ),
});

export function isTidewatchError(err: unknown, factory?: { code: string }): err is TidewatchError {
  return err instanceof TidewatchError && (factory === undefined || err.code === factory.code);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
