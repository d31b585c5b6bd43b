// Resolution: for every option, take the value from the strongest source that sets it (decisions §2):
//   flag > TIDEWATCH_<X> > WATCHTOWER_<alias> > un-prefixed variable (DOCKER_HOST...) > config file > default.
// Empty variables count as unset (Watchtower's rule), except presence-only ones such as NO_COLOR.
// Then the cross-option rules run. Every failure is a ConfigError with a one-line message; secrets never
// appear in one (`<redacted>`).

import { statSync, readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';

import { parseArgv, type FlagValue } from './argv.js';
import { readConfigFile, type FileValue } from './config-file.js';
import { ConfigError, quoteValue } from './errors.js';
import { renderHelp } from './help.js';
import { checkRules } from './rules.js';
import { defaultConfig, envName, envNames, IGNORED_WATCHTOWER_OPTIONS, optionLabel, OPTIONS } from './options.js';
import { parsePath, stripSlash } from './parsers.js';
import type { AnyOptionSpec, OptionKey, OptionName, TidewatchConfig, ValueSource } from './types.js';

export interface ResolveInput {
  /** The arguments after the program name: `process.argv.slice(2)`. */
  argv: string[];
  env: NodeJS.ProcessEnv;
  /** Directory relative paths (config file, secret files, TLS files) are resolved against. */
  cwd: string;
}

export interface ResolvedConfig {
  config: TidewatchConfig;
  /** Positional container names, leading `/` stripped. */
  names: string[];
  /** Where each option's value came from. */
  sources: Record<OptionName, ValueSource>;
  /** The WATCHTOWER_* variables that supplied a value, for the startup log line (decisions §1). */
  aliasesUsed: string[];
  /** Options of IGNORED_WATCHTOWER_OPTIONS that were set, for one startup warning. */
  ignoredSet: OptionName[];
  /** Non-fatal remarks for the startup log (e.g. API options set while no endpoint is enabled). */
  warnings: string[];
  /** Present when --help/-h was given: the text to print (nothing else was resolved). */
  help?: string;
  /** True when --version was given (nothing else was resolved). */
  version?: boolean;
}

/** One raw value and how to name where it came from. */
interface Candidate {
  raw: string;
  source: Exclude<ValueSource, 'default'>;
  /** `TIDEWATCH_INTERVAL`, `WATCHTOWER_POLL_INTERVAL`, `key "interval" in /etc/tidewatch.yaml`, ... */
  where: string;
  alias?: string;
}

function fromFlags(spec: AnyOptionSpec, values: FlagValue[]): Candidate | undefined {
  if (values.length === 0) return undefined;
  // Lists accumulate over repeated flags (pflag's string slices); any other flag keeps its last value.
  const multi = spec.kind === 'list' || spec.kind === 'endpoints';
  const raw = multi ? values.map((v) => v.raw).join(spec.join ?? ',') : values[values.length - 1]!.raw;
  return { raw, source: 'flag', where: envName(spec) ?? '' };
}

function fromEnv(spec: AnyOptionSpec, env: NodeJS.ProcessEnv): Candidate | undefined {
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

/** Decisions §2: a secret naming an existing file is that file's content, trimmed. */
function readSecret(spec: AnyOptionSpec, c: Candidate, cwd: string): string {
  if (spec.secret !== true || c.raw.trim() === '') return c.raw;
  const path = resolvePath(cwd, c.raw.trim());
  let isFile = false;
  try {
    isFile = statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    isFile = false; // a value that is not a usable path (too long, NUL byte...) is the secret itself
  }
  if (!isFile) return c.raw;
  try {
    const content = readFileSync(path, 'utf8');
    return spec.fromSecretFile ? spec.fromSecretFile(content) : content.trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`cannot read the secret file given for ${optionLabel(spec, c.where)}: ${code}`, spec.name);
  }
}

function parseCandidate(spec: AnyOptionSpec, c: Candidate, cwd: string): TidewatchConfig[OptionKey] {
  const raw = readSecret(spec, c, cwd);
  try {
    return spec.parse(raw, { origin: c.source, cwd });
  } catch (err) {
    const shown = spec.secret === true ? '<redacted>' : quoteValue(raw);
    const accepted = err instanceof Error ? err.message : String(err);
    throw new ConfigError(`invalid value ${shown} for ${optionLabel(spec, c.where || undefined)}: ${accepted}`, spec.name);
  }
}

function allSources(value: ValueSource): Record<OptionName, ValueSource> {
  return Object.fromEntries(OPTIONS.map((o) => [o.name, value])) as Record<OptionName, ValueSource>;
}

/** Resolves flags, variables, the config file and defaults into one checked configuration. */
export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const argv = parseArgv(input.argv);
  if (argv.help || argv.version) {
    const base = { config: defaultConfig(), names: [], sources: allSources('default'), aliasesUsed: [], ignoredSet: [], warnings: [] };
    return argv.help ? { ...base, help: renderHelp() } : { ...base, version: true };
  }

  const flagValues = new Map<string, FlagValue[]>();
  for (const v of argv.values) flagValues.set(v.spec.name, [...(flagValues.get(v.spec.name) ?? []), v]);

  const candidate = (spec: AnyOptionSpec): Candidate | undefined =>
    fromFlags(spec, flagValues.get(spec.name) ?? []) ?? fromEnv(spec, input.env);

  // The config file's own location comes from a flag or a variable only.
  const configSpec = OPTIONS.find((o) => o.name === 'config')!;
  const configCandidate = candidate(configSpec);
  const configPath =
    configCandidate === undefined ? '' : parsePath(configCandidate.raw, { origin: configCandidate.source, cwd: input.cwd });
  const fileValues = new Map<string, FileValue>();
  if (configPath !== '') for (const v of readConfigFile(configPath)) fileValues.set(v.spec.name, v);

  const config = defaultConfig() as unknown as Record<OptionKey, unknown>;
  const sources = allSources('default');
  const aliasesUsed: string[] = [];
  for (const spec of OPTIONS) {
    let c = candidate(spec);
    const file = fileValues.get(spec.name);
    if (c === undefined && file !== undefined) {
      c = { raw: file.raw, source: 'file', where: `key ${JSON.stringify(file.key)} in ${configPath}` };
    }
    if (c === undefined) continue;
    config[spec.key] = spec.name === 'config' ? configPath : parseCandidate(spec, c, input.cwd);
    sources[spec.name] = c.source;
    if (c.alias !== undefined) aliasesUsed.push(c.alias);
  }
  const cfg = config as unknown as TidewatchConfig;

  // Watchtower's deprecated switches are shorthands for endpoint names.
  const endpoints = new Set(cfg.httpApiEndpoints);
  if (cfg.httpApiUpdate) endpoints.add('update');
  if (cfg.httpApiMetrics) endpoints.add('metrics');
  if (cfg.httpApiContainers) endpoints.add('containers');
  cfg.httpApiEndpoints = [...endpoints].sort();

  // --debug and --trace are shorthands for a more verbose level; they never make logging quieter.
  if (cfg.trace) cfg.logLevel = 'trace';
  else if (cfg.debug && cfg.logLevel !== 'trace') cfg.logLevel = 'debug';

  const warnings = checkRules(cfg, sources);

  const ignored: ReadonlySet<string> = new Set(IGNORED_WATCHTOWER_OPTIONS);
  return {
    config: cfg,
    names: argv.positionals.map(stripSlash).filter((n) => n !== ''),
    sources,
    aliasesUsed,
    ignoredSet: OPTIONS.filter((o) => ignored.has(o.name) && sources[o.name] !== 'default').map((o) => o.name),
    warnings,
  };
}
