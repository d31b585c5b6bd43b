// What a plugin is, the one way to declare it: a name, its option declarations, and `apply(core, options)`
// tapping the hooks under its own name (docs/plugins.md). `definePlugin` only checks and types the object:
// a plain object of the same shape is a plugin too (that is what a plain-JavaScript plugin writes).
import { createRequire } from 'node:module';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import { TidewatchError, errors } from './errors.js';
import { defaultOf, type JsonSchema, type OptionSpec, type OptionSpecs, type OptionValues } from './option.js';
import { isSimpleSchema, simpleSchemaProblems } from './option-schema.js';
import type { ServiceKey } from './services.js';
import type { TidewatchCore } from './tidewatch.js';

export interface TidewatchPlugin<Options extends object = Record<string, unknown>> {
  readonly name: string;
  /** The plugin's options, each declared once (docs/configuration.md#declaring-options). */
  readonly options?: OptionSpecs;
  /** Services the plugin cannot work without; start-up fails naming the first one nobody provides. */
  readonly requires?: readonly Pick<ServiceKey<unknown>, 'name'>[];
  /** Whether to apply the plugin with these options (default: always). Its options still show in `/v1/config`. */
  enabled?(options: Options): boolean;
  /**
   * Rules between the plugin's own options, checked before `apply`: throw `errors.invalidOptions(...)` for a
   * combination that cannot work; return remarks to log as warnings. `label(key)` names an option as the
   * user wrote it (`--rolling-restart (TIDEWATCH_ROLLING_RESTART)`).
   */
  check?(options: Options, label: (key: string) => string): readonly string[] | void;
  /**
   * Checks that need the plugin's own modules but contact nothing and start nothing (parsing notification
   * URLs, compiling a template): `tidewatch check-config` runs them for every enabled plugin
   * (docs/configuration.md#checking-a-configuration). Throw as `check` does; return remarks as warnings.
   * `apply` must reach the same verdict on the same options.
   */
  validate?(options: Options): Promise<readonly string[] | void>;
  /** Taps hooks; may be async (a runtime repairing an interrupted run before the first one). */
  apply(core: TidewatchCore, options: Options): void | Promise<void>;
}

/** A plugin with the options to apply it with: typed values, every one optional (defaults fill the rest). */
export interface PluginUse<Options extends object = Record<string, unknown>> {
  readonly plugin: TidewatchPlugin<Options>;
  readonly options?: Partial<Options>;
}

export interface PluginDefinition<S extends OptionSpecs> {
  readonly name: string;
  readonly options?: S;
  readonly requires?: readonly Pick<ServiceKey<unknown>, 'name'>[];
  enabled?(options: OptionValues<S>): boolean;
  check?(options: OptionValues<S>, label: (key: keyof S & string) => string): readonly string[] | void;
  validate?(options: OptionValues<S>): Promise<readonly string[] | void>;
  apply(core: TidewatchCore, options: OptionValues<S>): void | Promise<void>;
}

/** Declares a plugin: its options object is typed from its declarations. */
export function definePlugin<S extends OptionSpecs = Record<never, OptionSpec>>(
  definition: PluginDefinition<S>,
): TidewatchPlugin<OptionValues<S>> {
  if (typeof definition.name !== 'string' || definition.name === '') throw new TidewatchError('TW_ERR_PLUGIN_DEFINITION', 'a plugin needs a name', 500);
  return Object.freeze({ ...definition }) as TidewatchPlugin<OptionValues<S>>;
}

let ajv: AjvType | undefined;

/** ajv loads on the first validation, not when the core's surface is imported. */
function validatorCompiler(): AjvType {
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  return (ajv ??= new Ajv({ allErrors: true, coerceTypes: false }));
}
const validators = new WeakMap<OptionSpec, ValidateFunction>();

/** ajv's answer for one option's value, each problem named from the option down (`receivers/0 must …`). */
function customProblems(key: string, spec: OptionSpec, given: unknown): string {
  let validate = validators.get(spec);
  if (!validate) {
    validate = validatorCompiler().compile(spec.schema);
    validators.set(spec, validate);
  }
  return validate(given) ? '' : describe(key, validate.errors);
}

function describe(key: string, errs: ErrorObject[] | null | undefined): string {
  return (errs ?? []).map((e) => `${key}${e.instancePath} ${e.message ?? 'is invalid'}`).join('; ');
}

const simple = new WeakMap<JsonSchema, boolean>();

/** Whether the declaration's schema is one core/option-schema.ts checks (the builders' own shapes). */
function isSimple(schema: JsonSchema): boolean {
  let answer = simple.get(schema);
  if (answer === undefined) {
    answer = isSimpleSchema(schema);
    simple.set(schema, answer);
  }
  return answer;
}

/** The declaration's own default, as the configuration layer fills it in for an option nobody set. */
function isDeclaredDefault(spec: OptionSpec, given: unknown): boolean {
  return given === spec.default || JSON.stringify(given) === JSON.stringify(spec.default);
}

/**
 * What is wrong with the given options: the builders' own shapes are checked without ajv, and ajv loads
 * only for a custom schema whose value is not the declaration's default (docs/performance.md#memory): a
 * plugin that is off, such as webhooks without receivers, does not load it.
 */
function optionProblems(specs: OptionSpecs, value: Record<string, unknown>): string {
  const problems: string[] = [];
  for (const [key, given] of Object.entries(value)) {
    const s = specs[key];
    if (!Object.hasOwn(specs, key) || s === undefined) problems.push(`unknown option ${JSON.stringify(key)}`);
    else if (given === undefined) continue;
    else if (isSimple(s.schema)) problems.push(...simpleSchemaProblems(s.schema, given, key));
    else if (!isDeclaredDefault(s, given)) {
      const found = customProblems(key, s, given);
      if (found) problems.push(found);
    }
  }
  return problems.join('; ');
}

/** Checks typed options against the declarations and fills every default; throws TW_ERR_PLUGIN_OPTIONS. */
export function resolvePluginOptions<O extends object>(plugin: TidewatchPlugin<O>, given: unknown): O {
  const value = given ?? {};
  if (typeof value !== 'object' || Array.isArray(value)) throw errors.pluginOptions(plugin.name, 'options must be an object');
  const specs = plugin.options ?? {};
  const problems = optionProblems(specs, value as Record<string, unknown>);
  if (problems) throw errors.pluginOptions(plugin.name, problems);
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(specs)) {
    const v = (value as Record<string, unknown>)[key];
    out[key] = v === undefined ? defaultOf(s) : v;
  }
  return out as O;
}

export function usePlugin<O extends object>(plugin: TidewatchPlugin<O>, options?: Partial<O>): PluginUse<O> {
  return options === undefined ? { plugin } : { plugin, options };
}
