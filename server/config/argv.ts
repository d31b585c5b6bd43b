// Command-line parsing with Watchtower's (Go pflag's) rules, written by hand rather than with commander.
// Why not commander: a boolean flag there either takes no value (so `--cleanup=false` is refused) or an
// optional one, and then `--cleanup nginx` swallows the container name `nginx` as the flag's value. pflag,
// and so every Watchtower command line, means "cleanup on, watch nginx". The rules here:
//   --name=value, --name value (the next argument, even if it starts with '-'), -n value, -nvalue, -n=value;
//   a boolean flag alone means true and takes a value only with '=' (--cleanup=false, -c=false);
//   short booleans cluster (-cR, -cRi 5m); `--` ends the flags; a lone `-` is a positional argument;
//   a repeated flag: lists accumulate, others keep the last value (resolve.ts does that).

import { ConfigError } from '../../core/errors.js';
import { isGoBool } from '../../core/option-parsers.js';
import type { OptionTable, TableSpec } from './table.js';

export interface FlagValue {
  spec: TableSpec;
  raw: string;
  /** As written, for messages: `--interval` or `-i`. */
  flag: string;
}

export interface ParsedArgv {
  values: FlagValue[];
  positionals: string[];
  help: boolean;
  version: boolean;
}

/** `--help`, `-h` and `--version` win over everything else, so they work even with a broken command line. */
function wants(argv: readonly string[], ...flags: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => flags.includes(a));
}

function boolFollowedByWord(spec: TableSpec, flag: string, next: string | undefined): void {
  // `--cleanup false` means "cleanup, and watch a container named false" to pflag; that is never what was
  // meant (and a Watchtower setup written so was already broken), so say how to write it instead.
  if (next !== undefined && isGoBool(next)) {
    throw new ConfigError(
      `${flag} takes no separate value (got ${JSON.stringify(next)}): write ${flag}=${next} or ${flag} alone for true`,
      spec.name,
    );
  }
}

/** Parses the arguments after the program name (`process.argv.slice(2)`). */
export function parseArgv(argv: readonly string[], table: OptionTable): ParsedArgv {
  const out: ParsedArgv = {
    values: [],
    positionals: [],
    help: wants(argv, '--help', '-h'),
    version: wants(argv, '--version'),
  };
  if (out.help || out.version) return out;

  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      const flag = `--${name}`;
      const spec = table.byFlag(name)?.spec;
      if (spec === undefined) {
        throw new ConfigError(`unknown flag ${flag}: see tidewatch --help for the accepted flags`);
      }
      if (eq !== -1) {
        out.values.push({ spec, raw: arg.slice(eq + 1), flag });
      } else if (spec.kind === 'boolean') {
        boolFollowedByWord(spec, flag, argv[i + 1]);
        out.values.push({ spec, raw: 'true', flag });
      } else if (i + 1 < argv.length) {
        out.values.push({ spec, raw: argv[++i]!, flag });
      } else {
        throw new ConfigError(`flag ${flag} needs a value${spec.valueName ? ` ${spec.valueName}` : ''}`, spec.name);
      }
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      // A cluster of short flags: booleans, optionally ending with one that takes the rest as its value.
      for (let j = 1; j < arg.length; j++) {
        const letter = arg[j]!;
        const flag = `-${letter}`;
        const spec = table.byShort(letter)?.spec;
        if (spec === undefined) {
          throw new ConfigError(`unknown shorthand flag ${flag} in ${arg}: see tidewatch --help for the accepted flags`);
        }
        const rest = arg.slice(j + 1);
        if (spec.kind === 'boolean') {
          if (rest.startsWith('=')) {
            out.values.push({ spec, raw: rest.slice(1), flag });
            break;
          }
          if (rest === '') boolFollowedByWord(spec, flag, argv[i + 1]);
          out.values.push({ spec, raw: 'true', flag });
          continue;
        }
        if (rest !== '') {
          out.values.push({ spec, raw: rest.startsWith('=') ? rest.slice(1) : rest, flag });
        } else if (i + 1 < argv.length) {
          out.values.push({ spec, raw: argv[++i]!, flag });
        } else {
          throw new ConfigError(`flag ${flag} needs a value${spec.valueName ? ` ${spec.valueName}` : ''}`, spec.name);
        }
        break;
      }
      continue;
    }
    out.positionals.push(arg);
  }
  return out;
}

/**
 * The values of a few flags, read before the table is complete (which plugins to load, which config file
 * to read): `--name value` and `--name=value`; everything else is left for parseArgv.
 */
export function prescanArgv(argv: readonly string[], names: readonly string[]): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const end = argv.indexOf('--');
  const args = end === -1 ? argv : argv.slice(0, end);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    for (const name of names) {
      const flag = `--${name}`;
      let value: string | undefined;
      if (arg.startsWith(`${flag}=`)) value = arg.slice(flag.length + 1);
      else if (arg === flag && i + 1 < args.length) value = args[++i];
      if (value !== undefined) found.set(name, [...(found.get(name) ?? []), value]);
    }
  }
  return found;
}
