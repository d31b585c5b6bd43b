// What a plugin is: a name, an optional JSON schema for its options (checked with ajv before
// `apply` runs) and `apply(core, options)`, tapping the hooks under its own name.
import { Ajv, type ErrorObject } from 'ajv';
import { errors } from './errors.js';
import type { TidewatchCore } from './tidewatch.js';

/** A JSON schema object as ajv takes it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

export interface TidewatchPlugin<Options = Record<string, unknown>> {
  readonly name: string;
  readonly optionsSchema?: JsonSchema;
  /** Taps hooks; may be async (a runtime repairing an interrupted run before the first one). */
  apply(core: TidewatchCore, options: Options): void | Promise<void>;
}

/** A plugin with the options to apply it with. */
export interface PluginUse<Options = Record<string, unknown>> {
  readonly plugin: TidewatchPlugin<Options>;
  readonly options?: Options;
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false });

function describe(errs: ErrorObject[] | null | undefined): string {
  return (errs ?? [])
    .map((e) => `${e.instancePath || 'options'} ${e.message ?? 'is invalid'}`.trim())
    .join('; ');
}

/** Validates (and fills defaults into) a copy of the options; throws TW_ERR_PLUGIN_OPTIONS. */
export function validatePluginOptions<O>(plugin: TidewatchPlugin<O>, options: unknown): O {
  const value = structuredCloneSafe(options ?? {});
  if (!plugin.optionsSchema) return value as O;
  const validate = ajv.compile(plugin.optionsSchema);
  if (!validate(value)) throw errors.pluginOptions(plugin.name, describe(validate.errors));
  return value as O;
}

/** Options may carry functions or class instances (a logger, a client): copy plain data only. */
function structuredCloneSafe(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  return { ...(value as Record<string, unknown>) };
}

export function usePlugin<O>(plugin: TidewatchPlugin<O>, options?: O): PluginUse<O> {
  return options === undefined ? { plugin } : { plugin, options };
}
