// The option table of one process: the declarations of every loaded plugin, in plugin order. An option
// that several plugins declare with the same declaration object (core's SHARED_OPTIONS) is one entry
// read by all of them; two different declarations of one flag, or of one short letter, are refused.
import { ConfigError } from '../../core/errors.js';
import type { TidewatchPlugin } from '../../core/plugin.js';
import type { OptionSpec } from '../../core/option.js';

/** Where a plugin reads the option: its name and the key in its options object. */
export interface OptionOwner {
  readonly plugin: string;
  readonly key: string;
}

/** A table entry: the declaration with its camelCase name (`http-api-port` → `httpApiPort`). */
export type TableSpec = OptionSpec & { readonly name: string; readonly key: string };

export interface TableEntry {
  readonly spec: TableSpec;
  readonly owners: OptionOwner[];
}

export interface OptionTable {
  readonly entries: readonly TableEntry[];
  byFlag(flag: string): TableEntry | undefined;
  byShort(letter: string): TableEntry | undefined;
  /** By flag, camelCase name or snake_case name: how the config file may spell a key. */
  lookup(key: string): TableEntry | undefined;
  /** The option the positional arguments fill, if a plugin declared one. */
  readonly positional: TableEntry | undefined;
}

export function camelName(flag: string): string {
  return flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function buildTable(plugins: readonly TidewatchPlugin<object>[]): OptionTable {
  const entries: TableEntry[] = [];
  const flags = new Map<string, { declared: OptionSpec; entry: TableEntry }>();
  const shorts = new Map<string, TableEntry>();
  for (const plugin of plugins) {
    for (const [key, declared] of Object.entries(plugin.options ?? {})) {
      const owner = { plugin: plugin.name, key };
      const existing = flags.get(declared.flag);
      if (existing) {
        if (existing.declared !== declared) {
          const first = existing.entry.owners[0]?.plugin ?? '?';
          throw new ConfigError(`plugins ${first} and ${plugin.name} both declare --${declared.flag}: a flag belongs to one plugin`, declared.flag);
        }
        existing.entry.owners.push(owner);
        continue;
      }
      const entry: TableEntry = { spec: { ...declared, name: declared.flag, key: camelName(declared.flag) }, owners: [owner] };
      if (declared.short !== undefined) {
        const taken = shorts.get(declared.short);
        if (taken) {
          throw new ConfigError(`plugins ${taken.owners[0]?.plugin ?? '?'} and ${plugin.name} both declare -${declared.short}`, declared.flag);
        }
        shorts.set(declared.short, entry);
      }
      flags.set(declared.flag, { declared, entry });
      entries.push(entry);
    }
  }
  const byFlag = new Map(entries.map((e) => [e.spec.flag, e]));
  const byKey = new Map(entries.map((e) => [e.spec.key, e]));
  const byFileKey = new Map(entries.flatMap((e) => (e.spec.fileKey === undefined ? [] : [[e.spec.fileKey, e] as const])));
  return {
    entries,
    byFlag: (flag) => byFlag.get(flag),
    byShort: (letter) => shorts.get(letter),
    lookup: (key) => byFlag.get(key) ?? byFlag.get(key.replace(/_/g, '-')) ?? byKey.get(key) ?? byFileKey.get(key),
    positional: entries.find((e) => e.spec.positional === true),
  };
}
