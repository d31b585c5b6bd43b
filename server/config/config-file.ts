// The config file (`--config FILE` / TIDEWATCH_CONFIG): YAML or JSON, one mapping of option names to values.
// Keys may be kebab-case (`http-api-endpoints`, as the flag), camelCase (`httpApiEndpoints`, as the
// TidewatchConfig key) or snake_case (`http_api_endpoints`, as GET /v1/config shows them), so the view can be
// pasted back. Values are turned into the same raw strings a variable would hold and parsed by the same
// option parsers, so one value means the same thing wherever it is written.

import { readFileSync } from 'node:fs';
import { extname } from 'node:path';

import { parse as parseYaml } from 'yaml';

import { ConfigError } from './errors.js';
import { optionByKey, optionByName } from './options.js';
import type { AnyOptionSpec } from './types.js';

export interface FileValue {
  spec: AnyOptionSpec;
  raw: string;
  /** The key as written in the file, for messages. */
  key: string;
}

function lookup(key: string): AnyOptionSpec | undefined {
  return optionByName(key) ?? optionByName(key.replace(/_/g, '-')) ?? optionByKey(key);
}

function oneLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split(/\r?\n/)[0] ?? '';
}

/** Turns a YAML/JSON value into the raw string the option's parser reads; undefined = not set. */
function toRaw(spec: AnyOptionSpec, key: string, value: unknown, path: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value) && (spec.kind === 'list' || spec.kind === 'endpoints')) {
    if (value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(spec.join ?? ',');
  }
  const what = Array.isArray(value) ? 'a list' : 'an object';
  throw new ConfigError(
    `invalid value for ${key} in config file ${path}: got ${what}, expected ${
      spec.kind === 'list' || spec.kind === 'endpoints' ? 'a string or a list of strings' : 'a string, number or boolean'
    }`,
    spec.name,
  );
}

/** Reads and checks the file; every key must name an option. */
export function readConfigFile(path: string): FileValue[] {
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
  if (doc === null || doc === undefined) return []; // an empty file sets nothing
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    throw new ConfigError(`config file ${path} must hold a mapping of option names to values`, 'config');
  }
  const out: FileValue[] = [];
  for (const [key, value] of Object.entries(doc as Record<string, unknown>)) {
    const spec = lookup(key);
    if (spec === undefined) {
      throw new ConfigError(`unknown option ${JSON.stringify(key)} in config file ${path}: see tidewatch --help for the accepted names`);
    }
    if (spec.name === 'config') {
      throw new ConfigError(`option "config" cannot be set inside config file ${path}: use --config or TIDEWATCH_CONFIG`, 'config');
    }
    const raw = toRaw(spec, key, value, path);
    if (raw !== undefined) out.push({ spec, raw, key });
  }
  return out;
}
