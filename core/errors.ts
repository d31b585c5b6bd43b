// Errors as codes, fastify-style: every error Tidewatch raises has a stable `code`, a message and the
// HTTP status an API layer should map it to; plugins subclass TidewatchError or use createError for their
// own codes. Every code is listed in docs/errors.md (a test keeps the two in step).

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

/**
 * A bad option value or combination: the server prints the message as the one line of a start-up failure
 * and exits with code 2, so the message names the option and never holds a secret's value.
 */
export class ConfigError extends TidewatchError {
  /** Kebab-case option name the error is about, when there is one. */
  readonly option: string | undefined;
  /** The process exit code of every configuration error. */
  readonly exitCode = 2;

  constructor(message: string, option?: string) {
    // Whatever a parser put in, the printed message stays on one line.
    super('TW_ERR_CONFIG', message.replace(/\s*[\r\n]+\s*/g, ' '), 500);
    this.name = 'ConfigError';
    this.option = option;
  }
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
  serviceConflict: createError(
    'TW_ERR_SERVICE_CONFLICT',
    (service: string, first: string, second: string) =>
      `service ${service} is provided by plugin ${first} already; plugin ${second} cannot provide it too`,
    500,
  ),
  serviceMissing: createError(
    'TW_ERR_SERVICE_MISSING',
    (service: string, plugin: string) =>
      `plugin ${plugin} needs the ${service} service, which no loaded plugin provides`,
    500,
  ),
  // An exact plan (docs/plans.md): the id is not echoed, only what became of it.
  planNotFound: createError('TW_ERR_PLAN_NOT_FOUND', () => 'unknown or expired plan', 404),
  planApplied: createError('TW_ERR_PLAN_APPLIED', () => 'this plan has been applied already', 409),
  noApplier: createError(
    'TW_ERR_NO_APPLIER',
    (target: string, runtime: string) => `no plugin applies updates to ${target} (runtime ${runtime})`,
    500,
  ),
});

/** A configuration error naming `option` (kebab-case flag). */
export function invalidOptions(option: string, message: string): ConfigError {
  return new ConfigError(message, option);
}

export function isTidewatchError(err: unknown, factory?: { code: string }): err is TidewatchError {
  return err instanceof TidewatchError && (factory === undefined || err.code === factory.code);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
