// The config file (`--config FILE` / TIDEWATCH_CONFIG): YAML or JSON, one mapping of option names to values.
// Keys may be kebab-case (`http-api-endpoints`, as the flag), camelCase (`httpApiEndpoints`) or snake_case
// (`http_api_endpoints`, as GET /v1/config shows them), so the view can be pasted back. `plugins` lists
// extra plugins: module specifiers, or `{ path, options }` entries whose options (the plugin's own keys or
// flags) configure that plugin (docs/configuration.md#the-config-file). Values are turned into the same raw
// strings a variable would hold and parsed by the same declarations, so a value means the same thing
// wherever it is written.
import { extname } from 'node:path';
import { createRequire } from 'node:module';
import { ConfigError, type TidewatchPlugin } from '../../core/index.js';
import type { OptionTable, TableSpec } from './table.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { readFileSync } = process.getBuiltinModule('node:fs');

export interface FileValue {
  spec: TableSpec;
  raw: string;
  /** The key as written in the file, for messages. */
  key: string;
}

/** A `plugins` entry: the module to load and, for `{ path, options }` entries, its options. */
export interface FilePluginEntry {
  readonly specifier: string;
  readonly options: Readonly<Record<string, unknown>>;
}

export interface ConfigDocument {
  readonly path: string;
  readonly values: Readonly<Record<string, unknown>>;
  readonly plugins: readonly FilePluginEntry[];
}

/** yaml loads only when a YAML file is read: `--help` and most starts never need it. */
function parseYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text);
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split(/\r?\n/)[0] ?? '';
}

function pluginEntries(value: unknown, path: string): FilePluginEntry[] {
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : undefined;
  if (!list) throw new ConfigError(`invalid value for plugins in config file ${path}: expected a list`, 'plugins');
  return list.map((item) => {
    if (typeof item === 'string') return { specifier: item, options: {} };
    const entry = item as { path?: unknown; package?: unknown; options?: unknown } | null;
    const specifier = entry?.path ?? entry?.package;
    const options = entry?.options ?? {};
    if (typeof specifier !== 'string' || typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new ConfigError(
        `invalid plugins entry in config file ${path}: expected a module path or package name, or { path, options }`,
        'plugins',
      );
    }
    return { specifier, options: options as Record<string, unknown> };
  });
}

/** Reads and parses the file; option keys are checked later, against the complete table. */
export function readConfigDocument(path: string): ConfigDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? oneLine(err);
    throw new ConfigError(`cannot read config file ${JSON.stringify(path)} given by --config (TIDEWATCH_CONFIG): ${code}`, 'config');
  }
  let doc: unknown;
  try {
    doc = extname(path).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ConfigError(`config file ${path} is not valid YAML or JSON: ${oneLine(err)}`, 'config');
  }
  if (doc === null || doc === undefined) return { path, values: {}, plugins: [] }; // an empty file sets nothing
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(`config file ${path} must hold a mapping of option names to values`, 'config');
  }
  const { plugins, ...values } = doc as Record<string, unknown>;
  return { path, values, plugins: pluginEntries(plugins, path) };
}

/** Turns a YAML/JSON value into the raw string the option's parser reads; undefined = not set. */
function toRaw(spec: TableSpec, key: string, value: unknown, path: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && spec.kind === 'list') {
    if (value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(spec.join ?? ',');
  }
  const what = Array.isArray(value) ? 'a list' : 'an object';
  throw new ConfigError(
    `invalid value for ${key} in config file ${path}: got ${what}, expected ${
      spec.kind === 'list' ? 'a string or a list of strings' : 'a string, number or boolean'
    }`,
    spec.name,
  );
}

/**
 * Every value the file sets, checked against the table: top-level keys, then each plugin entry's
 * options (which win, being the more specific). `loaded` maps an entry's specifier to its plugin.
 */
export function fileValues(
  doc: ConfigDocument,
  table: OptionTable,
  loaded: ReadonlyMap<string, TidewatchPlugin<object>>,
): FileValue[] {
  const out: FileValue[] = [];
  for (const [key, value] of Object.entries(doc.values)) {
    const entry = table.lookup(key);
    if (entry === undefined) {
      throw new ConfigError(`unknown option ${JSON.stringify(key)} in config file ${doc.path}: see tidewatch --help for the accepted names`);
    }
    if (entry.spec.name === 'config') {
      throw new ConfigError(`option "config" cannot be set inside config file ${doc.path}: use --config or TIDEWATCH_CONFIG`, 'config');
    }
    const raw = toRaw(entry.spec, key, value, doc.path);
    if (raw !== undefined) out.push({ spec: entry.spec, raw, key });
  }
  for (const { specifier, options } of doc.plugins) {
    const plugin = loaded.get(specifier);
    const specs = plugin?.options ?? {};
    for (const [key, value] of Object.entries(options)) {
      const declared = specs[key] ?? Object.values(specs).find((s) => s.flag === key);
      const entry = declared && table.byFlag(declared.flag);
      if (!entry) {
        throw new ConfigError(`unknown option ${JSON.stringify(key)} for plugin ${specifier} in config file ${doc.path}`);
      }
      const raw = toRaw(entry.spec, key, value, doc.path);
      if (raw !== undefined) out.push({ spec: entry.spec, raw, key: `plugins[${specifier}].${key}` });
    }
  }
  return out;
}
