// Resolution: for every option of the loaded plugins, take the value from the strongest source that sets
// it (docs/interface.md §2):
//   flag > TIDEWATCH_<X> > WATCHTOWER_<alias> > un-prefixed variable (DOCKER_HOST...) > config file > default.
// Empty variables count as unset (Watchtower's rule), except presence-only ones such as NO_COLOR. Every
// failure is a ConfigError with a one-line message; secrets never appear in one (`<redacted>`). The rules
// between one plugin's options are the plugin's own (`check`), run by the core before anything is applied.
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { ConfigError, type TidewatchPlugin } from '../../core/index.js';
import { defaultOf, envName, envNames, optionLabel } from '../../core/option.js';
import type { PluginUse } from '../../core/plugin.js';
import { parseArgv, prescanArgv, type FlagValue } from './argv.js';
import { builtinPlugins } from '../builtins.js';
import { fileValues, readConfigDocument, type ConfigDocument, type FileValue } from './config-file.js';
import { quoteValue } from './errors.js';
import { renderHelp } from './help.js';
import { checkRules } from './rules.js';
import { servicePlugin, SERVICE_OPTIONS, type ServiceValues } from './service-options.js';
import { buildTable, type OptionTable, type TableSpec } from './table.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { readFileSync, statSync } = process.getBuiltinModule('node:fs');

/** Where a value came from; `default` when no source set it. */
export type ValueSource = 'flag' | 'env' | 'file' | 'default';

export interface ResolveInput {
  /** The arguments after the program name: `process.argv.slice(2)`. */
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** Directory relative paths (config file, secret files, TLS files) are resolved against. */
  cwd: string;
  /** Third-party plugins, by the specifier they were loaded from (`--plugins`, or the config file). */
  thirdParty?: ReadonlyMap<string, TidewatchPlugin<object>>;
}

export interface ResolvedConfig {
  /** Every option's value by its camelCase name (`httpApiPort`); the server's own are typed. */
  config: ServiceValues & Record<string, unknown>;
  /** Positional arguments (container names), leading `/` stripped. */
  names: string[];
  /** Where each option's value came from, by flag. */
  sources: Record<string, ValueSource>;
  /** The WATCHTOWER_* variables that supplied a value, for the startup log line (docs/interface.md §1). */
  aliasesUsed: string[];
  /** Non-fatal remarks for the startup log. */
  warnings: string[];
  /** Present when --help/-h was given: the text to print (nothing else was resolved). */
  help?: string;
  /** True when --version was given (nothing else was resolved). */
  version?: boolean;
  readonly table: OptionTable;
  /** Every plugin in tap order, with its options from the values above. */
  readonly plugins: PluginUse<object>[];
}

/** One raw value and how to name where it came from. */
interface Candidate {
  raw: string;
  source: Exclude<ValueSource, 'default'>;
  /** `TIDEWATCH_INTERVAL`, `WATCHTOWER_POLL_INTERVAL`, `key "interval" in /etc/tidewatch.yaml`, ... */
  where: string;
  alias?: string;
}

function fromFlags(spec: TableSpec, values: FlagValue[]): Candidate | undefined {
  if (values.length === 0) return undefined;
  // Lists accumulate over repeated flags (pflag's string slices); any other flag keeps its last value.
  const raw = spec.kind === 'list' ? values.map((v) => v.raw).join(spec.join ?? ',') : values[values.length - 1]!.raw;
  return { raw, source: 'flag', where: envName(spec) ?? '' };
}

function fromEnv(spec: TableSpec, env: NodeJS.ProcessEnv): Candidate | undefined {
  for (const name of envNames(spec)) {
    const value = env[name];
    if (value === undefined) continue;
    if (name === spec.externalEnv && spec.externalEnvPresence === true) {
      return { raw: 'true', source: 'env', where: name };
    }
    if (value === '') continue;
    return { raw: value, source: 'env', where: name, ...(name.startsWith('WATCHTOWER_') ? { alias: name } : {}) };
  }
  return undefined;
}

/**
 * docs/interface.md §2: a secret naming an existing file is that file's content, trimmed. Two slips the
 * user would otherwise only see as a refused request (docs/troubleshooting.md#a-secret-file-that-is-not-there)
 * become start-up warnings, naming the option and never the value: an absolute path with no file there (the
 * path itself would be the secret) and an empty file.
 */
function readSecret(spec: TableSpec, c: Candidate, cwd: string, warnings: string[]): string {
  if (spec.secret !== true || c.raw.trim() === '') return c.raw;
  const given = c.raw.trim();
  const path = resolvePath(cwd, given);
  let kind: 'file' | 'other' | 'none' = 'none';
  try {
    const found = statSync(path, { throwIfNoEntry: false });
    kind = found === undefined ? 'none' : found.isFile() ? 'file' : 'other';
  } catch {
    kind = 'none'; // a value that is not a usable path (too long, NUL byte...) is the secret itself
  }
  if (kind !== 'file') {
    if (isAbsolute(given) && !/\s/.test(given)) {
      const what = kind === 'none' ? 'no file is there' : 'it is not a regular file';
      warnings.push(`${optionLabel(spec, c.where || undefined)} is an absolute path but ${what}: the path itself is used as the secret (mount the file, or give the secret itself)`);
    }
    return c.raw;
  }
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`cannot read the secret file given for ${optionLabel(spec, c.where)}: ${code}`, spec.name);
  }
  if (content.trim() === '') warnings.push(`the secret file given for ${optionLabel(spec, c.where || undefined)} is empty`);
  return spec.fromSecretFile ? spec.fromSecretFile(content) : content.trim();
}

function parseCandidate(spec: TableSpec, c: Candidate, cwd: string, warnings: string[]): unknown {
  const raw = readSecret(spec, c, cwd, warnings);
  try {
    return spec.parse(raw, { origin: c.source, cwd });
  } catch (err) {
    const shown = spec.secret === true ? '<redacted>' : quoteValue(raw);
    const accepted = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`invalid value ${shown} for ${optionLabel(spec, c.where || undefined)}: ${accepted}`, spec.name);
  }
}

/** The config file's path and content, and the plugins to load, read before the option table exists. */
export interface Bootstrap {
  readonly document: ConfigDocument | undefined;
  /** Module specifiers from `--plugins`/TIDEWATCH_PLUGINS, else from the config file. */
  readonly specifiers: string[];
}

export function readBootstrap(input: Omit<ResolveInput, 'thirdParty'>): Bootstrap {
  const scanned = prescanArgv(input.argv, ['config', 'plugins']);
  const first = (name: 'config' | 'plugins'): string | undefined => {
    const fromFlag = scanned.get(name);
    if (fromFlag) return name === 'plugins' ? fromFlag.join(',') : fromFlag[fromFlag.length - 1];
    return envNames(SERVICE_OPTIONS[name]).map((n) => input.env[n]).find((v) => v !== undefined && v !== '');
  };
  const configRaw = first('config');
  const configPath = configRaw === undefined ? '' : SERVICE_OPTIONS.config.parse(configRaw, { origin: 'flag', cwd: input.cwd });
  const document = configPath === '' ? undefined : readConfigDocument(configPath);
  const pluginsRaw = first('plugins');
  const specifiers =
    pluginsRaw !== undefined
      ? SERVICE_OPTIONS.plugins.parse(pluginsRaw, { origin: 'flag', cwd: input.cwd })
      : (document?.plugins.map((p) => p.specifier) ?? []);
  return { document, specifiers };
}

/** Resolves flags, variables, the config file and defaults for every plugin's options. */
export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const thirdParty = input.thirdParty ?? new Map<string, TidewatchPlugin<object>>();
  const plugins: TidewatchPlugin<object>[] = [servicePlugin, ...builtinPlugins([...thirdParty.values()])];
  const table = buildTable(plugins);
  const argv = parseArgv(input.argv, table);
  const defaults = (): Record<string, unknown> => Object.fromEntries(table.entries.map((e) => [e.spec.key, defaultOf(e.spec)]));
  const allSources = (): Record<string, ValueSource> => Object.fromEntries(table.entries.map((e) => [e.spec.name, 'default' as const]));
  const uses = (config: Record<string, unknown>): PluginUse<object>[] =>
    plugins.map((plugin) => ({
      plugin,
      options: Object.fromEntries(Object.entries(plugin.options ?? {}).map(([key, s]) => [key, config[table.byFlag(s.flag)!.spec.key]])),
    }));
  if (argv.help || argv.version) {
    const config = defaults() as ResolvedConfig['config'];
    const base = { config, names: [], sources: allSources(), aliasesUsed: [], warnings: [], table, plugins: uses(config) };
    return argv.help ? { ...base, help: renderHelp(table) } : { ...base, version: true };
  }

  const flagValues = new Map<string, FlagValue[]>();
  for (const v of argv.values) flagValues.set(v.spec.name, [...(flagValues.get(v.spec.name) ?? []), v]);
  const { document } = readBootstrap(input);
  const fromFile = new Map<string, FileValue>();
  if (document) for (const v of fileValues(document, table, thirdParty)) fromFile.set(v.spec.name, v);

  const config = defaults();
  const sources = allSources();
  const aliasesUsed: string[] = [];
  const secretWarnings: string[] = [];
  for (const { spec } of table.entries) {
    let c = fromFlags(spec, flagValues.get(spec.name) ?? []) ?? fromEnv(spec, input.env);
    const file = fromFile.get(spec.name);
    if (c === undefined && file !== undefined && document) {
      c = { raw: file.raw, source: 'file', where: `key ${JSON.stringify(file.key)} in ${document.path}` };
    }
    if (c === undefined) continue;
    config[spec.key] = spec.name === 'config' ? (document?.path ?? '') : parseCandidate(spec, c, input.cwd, secretWarnings);
    sources[spec.name] = c.source;
    if (c.alias !== undefined) aliasesUsed.push(c.alias);
  }
  // `plugins` entries of the config file count as its value of --plugins.
  if (sources['plugins'] === 'default' && document && document.plugins.length > 0) {
    config['plugins'] = document.plugins.map((p) => p.specifier);
    sources['plugins'] = 'file';
  }
  const names = argv.positionals.map((n) => n.replace(/^\/+/, '')).filter((n) => n !== '');
  if (table.positional && names.length > 0) {
    config[table.positional.spec.key] = names;
    sources[table.positional.spec.name] = 'flag';
  }
  const cfg = config as ResolvedConfig['config'];
  // --debug and --trace are shorthands for a more verbose level; they never make logging quieter.
  if (cfg.trace) cfg.logLevel = 'trace';
  else if (cfg.debug && cfg.logLevel !== 'trace') cfg.logLevel = 'debug';

  const pluginUses = uses(cfg);
  // Each enabled plugin's own rules, so a bad combination exits 2 before anything starts. Their warnings
  // are logged by the core when it applies the plugins.
  for (const { plugin, options } of pluginUses) {
    const specs = plugin.options ?? {};
    plugin.check?.(options as object, (key) => (specs[key] ? optionLabel(specs[key]) : key));
  }
  const warnings = [...secretWarnings, ...checkRules(cfg, sources, table, pluginUses)];
  return {
    config: cfg,
    names,
    sources,
    aliasesUsed,
    warnings,
    table,
    plugins: pluginUses,
  };
}
