// Option declarations: a plugin declares each of its options once (flag, variables with their Watchtower
// alias, default, parser, secret or not, help), and everything else is derived from that declaration: the
// server's flags, TIDEWATCH_*/WATCHTOWER_* variables, config-file keys, `--help` and `/v1/config`, and the
// JSON schema that checks an embedder's typed values. So the command line and embedding share one default.
// How names are derived: docs/configuration.md#declaring-options.
import {
  durationParser,
  enumParser,
  integerParser,
  LIST_SPLITTERS,
  listParser,
  parseBoolean,
  parsePath,
  parseString,
  type ListSplit,
  type Parser,
} from './option-parsers.js';

/** A JSON schema object as ajv takes it. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/**
 * How `--help`, the config file and `/v1/config` treat a value. `cooldown` is a duration whose 0 reads "off"
 * (the cooldown plugin's `--cooldown-delay`, declared with `option.custom` and its own parser).
 */
export type OptionKind = 'boolean' | 'string' | 'path' | 'integer' | 'duration' | 'cooldown' | 'list' | 'enum';

/** What every builder takes besides its type-specific parts. */
export interface OptionCommon {
  /** The flag without `--`, kebab-case; also the config-file key and, snake_cased, the `/v1/config` key. */
  readonly flag: string;
  /** Single-letter flag without `-`. */
  readonly short?: string;
  /** Suffix of the `TIDEWATCH_` variable; default: the flag in UPPER_SNAKE. `null`: a flag only. */
  readonly env?: string | null;
  /** Suffix of the `WATCHTOWER_` alias; default: the same as `env`. `null`: no alias. */
  readonly watchtowerEnv?: string | null;
  /** An un-prefixed variable read after the prefixed ones (`DOCKER_HOST`, `REPO_USER`). */
  readonly externalEnv?: string;
  /** The external variable means `true` by being present, whatever its value (the NO_COLOR convention). */
  readonly externalEnvPresence?: boolean;
  /** Placeholder in `--help`, e.g. `<duration>`. */
  readonly valueName?: string;
  /** Redacted in errors, logs and `/v1/config`; a value naming an existing file is read from it. */
  readonly secret?: boolean;
  /** Secrets: how the file's content becomes the raw value (default: trimmed). */
  readonly fromSecretFile?: (content: string) => string;
  readonly description: string;
  /** Heading in `--help`. */
  readonly group: string;
  /** Not listed in `--help`. */
  readonly hidden?: boolean;
  /** The command line's positional arguments are this option's value (one option may say so: container names). */
  readonly positional?: boolean;
  /** Another key the config file accepts for the option (a repeatable flag's plural: `webhooks` for `--webhook`). */
  readonly fileKey?: string;
}

/** One option's declaration: what every builder takes, plus the kind, default, parser and schema. */
export interface OptionSpec<T = unknown> extends OptionCommon {
  readonly kind: OptionKind;
  readonly default: T;
  /** Turns one raw string into the typed value; throws an Error whose message says what is accepted. */
  readonly parse: Parser<T>;
  /** JSON schema of the typed value, for embedders' options. */
  readonly schema: JsonSchema;
  /** Lists: how repeated flags and config-file arrays are joined before `parse` (default `,`). */
  readonly join?: string;
}

/** A plugin's declarations, keyed by the option's name in its (camelCase) options object. */
export type OptionSpecs = { readonly [key: string]: OptionSpec };

/** The typed options object a set of declarations describes. */
export type OptionValues<S extends OptionSpecs> = { -readonly [K in keyof S]: S[K] extends OptionSpec<infer T> ? T : never };

function spec<T>(common: OptionCommon, rest: Omit<OptionSpec<T>, keyof OptionCommon>): OptionSpec<T> {
  return Object.freeze({ ...common, ...rest });
}

const stringList = { type: 'array', items: { type: 'string' } } as const;

/** Builders for the common kinds; `custom` takes any parser and schema. */
export const option = Object.freeze({
  boolean(c: OptionCommon & { default?: boolean }): OptionSpec<boolean> {
    const { default: def = false, ...common } = c;
    return spec(common, { kind: 'boolean', default: def, parse: parseBoolean, schema: { type: 'boolean' } });
  },
  string(c: OptionCommon & { default?: string; parse?: Parser<string>; pattern?: string }): OptionSpec<string> {
    const { default: def = '', parse = parseString, pattern, ...common } = c;
    const schema = pattern === undefined ? { type: 'string' } : { type: 'string', pattern };
    return spec(common, { kind: 'string', valueName: '<value>', default: def, parse, schema, ...pick(common) });
  },
  path(c: OptionCommon & { default?: string }): OptionSpec<string> {
    const { default: def = '', ...common } = c;
    return spec(common, { kind: 'path', valueName: '<file>', default: def, parse: parsePath, schema: { type: 'string' }, ...pick(common) });
  },
  integer(c: OptionCommon & { default: number; min?: number; max?: number }): OptionSpec<number> {
    const { default: def, min = 0, max = Number.MAX_SAFE_INTEGER, ...common } = c;
    return spec(common, {
      kind: 'integer',
      valueName: '<n>',
      default: def,
      parse: integerParser(min, max),
      schema: { type: 'integer', minimum: min, maximum: max },
      ...pick(common),
    });
  },
  /** Milliseconds; written as Go durations (`30s`, `1h30m`; digits alone are seconds). */
  duration(c: OptionCommon & { default: number; positive?: boolean; zeroMeans?: number }): OptionSpec<number> {
    const { default: def, positive, zeroMeans, ...common } = c;
    const opts = { ...(positive === undefined ? {} : { positive }), ...(zeroMeans === undefined ? {} : { zeroMeans }) };
    return spec(common, {
      kind: 'duration',
      valueName: '<duration>',
      default: def,
      parse: durationParser(opts),
      schema: positive === true ? { type: 'integer', exclusiveMinimum: 0 } : { type: 'integer', minimum: 0 },
      ...pick(common),
    });
  },
  list(
    c: OptionCommon & {
      default?: readonly string[];
      split?: ListSplit;
      item?: (value: string) => string;
      parse?: Parser<string[]>;
      join?: string;
      items?: JsonSchema;
    },
  ): OptionSpec<string[]> {
    const { default: def = [], split = 'comma-or-space', item, parse, join, items, ...common } = c;
    return spec(common, {
      kind: 'list',
      valueName: '<values>',
      default: [...def],
      parse: parse ?? listParser(LIST_SPLITTERS[split], item),
      schema: items === undefined ? stringList : { type: 'array', items },
      ...(join === undefined ? {} : { join }),
      ...pick(common),
    });
  },
  enum<T extends string>(
    c: OptionCommon & { values: readonly T[]; default: T; aliases?: Readonly<Record<string, T>> },
  ): OptionSpec<T> {
    const { values, default: def, aliases, ...common } = c;
    return spec(common, {
      kind: 'enum',
      valueName: `<${values.filter((v) => v !== '').join('|')}>`,
      default: def,
      parse: enumParser(values, aliases),
      schema: { enum: [...values] },
      ...pick(common),
    });
  },
  custom<T>(c: OptionCommon & { kind: OptionKind; default: T; parse: Parser<T>; schema: JsonSchema; join?: string }): OptionSpec<T> {
    const { kind, default: def, parse, schema, join, ...common } = c;
    return spec(common, { kind, default: def, parse, schema, ...(join === undefined ? {} : { join }) });
  },
});

/** A declaration's own valueName wins over the builder's placeholder. */
function pick(common: OptionCommon): { valueName?: string } {
  return common.valueName === undefined ? {} : { valueName: common.valueName };
}

/** `TIDEWATCH_<X>`, or undefined for flag-only options. */
export function envName(s: OptionSpec): string | undefined {
  if (s.env === null) return undefined;
  return `TIDEWATCH_${s.env ?? upperSnake(s.flag)}`;
}

/** The `WATCHTOWER_<X>` alias, or undefined when there is none. */
export function watchtowerEnvName(s: OptionSpec): string | undefined {
  if (s.env === null || s.watchtowerEnv === null) return undefined;
  return `WATCHTOWER_${s.watchtowerEnv ?? s.env ?? upperSnake(s.flag)}`;
}

/** Every variable an option reads, strongest first. */
export function envNames(s: OptionSpec): string[] {
  return [envName(s), watchtowerEnvName(s), s.externalEnv].filter((v): v is string => v !== undefined);
}

function upperSnake(flag: string): string {
  return flag.toUpperCase().replace(/-/g, '_');
}

/** `--interval (TIDEWATCH_INTERVAL)`: how messages name an option (and where its value was read from). */
export function optionLabel(s: OptionSpec, where?: string): string {
  const shown = where ?? envName(s);
  return shown === undefined || shown === '' ? `--${s.flag}` : `--${s.flag} (${shown})`;
}

/** A copy of the default a caller may change. */
export function defaultOf<T>(s: OptionSpec<T>): T {
  return (Array.isArray(s.default) ? [...(s.default as unknown[])] : s.default) as T;
}
