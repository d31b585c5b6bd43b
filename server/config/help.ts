// `tidewatch --help`, generated from the option table (every loaded plugin's declarations, third-party
// ones included) so it can never disagree with what is parsed. Each option gets two lines: the flag(s)
// and description, then the variables read and the default.
import { formatGoDuration } from '../../core/go-duration.js';
import { envNames, type OptionSpec } from '../../core/option.js';
import type { OptionTable } from './table.js';

type AnyOptionSpec = OptionSpec & { readonly name: string };

/** The default as a user would write it; empty string when there is nothing worth showing. */
export function defaultText(spec: AnyOptionSpec): string {
  const d: unknown = spec.default;
  if (spec.kind === 'duration' || spec.kind === 'cooldown') {
    return d === 0 && spec.kind === 'cooldown' ? '0 (off)' : formatGoDuration(d as number);
  }
  if (Array.isArray(d)) return d.length === 0 ? '' : d.join(',');
  if (typeof d === 'string') return d;
  if (d === false) return ''; // a switch is off unless given
  return String(d);
}

function flagText(spec: AnyOptionSpec): string {
  const long = `--${spec.name}${spec.kind === 'boolean' ? '' : ` ${spec.valueName ?? '<value>'}`}`;
  return spec.short === undefined ? `    ${long}` : `-${spec.short}, ${long}`;
}

const INTRO = [
  'Usage: tidewatch [options] [container names...]',
  '',
  'Watches running containers and replaces them when a newer image (or Git commit) exists.',
  'Container names limit the run to those containers. Precedence: flag > TIDEWATCH_* variable >',
  'WATCHTOWER_* alias > config file > default. Booleans take 1/t/true/0/f/false (--flag=false);',
  'durations are Go durations (30s, 5m, 1h30m), digits alone are seconds.',
];

/** The full `--help` text, options grouped as in the table. */
/**
 * The built-in groups in the order a user reads them; a third-party plugin's own groups come after them.
 */
export const GROUP_ORDER = [
  'Scheduling and run mode',
  'Container selection',
  'Update behaviour',
  'Registry and Git',
  'Docker connection',
  'HTTP API',
  'Logging',
  'Plugins and configuration',
];

function rank(group: string): number {
  const i = GROUP_ORDER.indexOf(group);
  return i === -1 ? GROUP_ORDER.length : i;
}

export function renderTableHelp(table: OptionTable): string {
  const byGroup = new Map<string, AnyOptionSpec[]>();
  for (const { spec: o } of table.entries) {
    if (o.hidden === true) continue;
    byGroup.set(o.group, [...(byGroup.get(o.group) ?? []), o]);
  }
  // A stable sort: groups of equal rank (third-party ones) keep the order their plugins were loaded in.
  const groups = [...byGroup].sort(([a], [b]) => rank(a) - rank(b));
  // Flags longer than the column get their description on the next line.
  const width = 36;
  const lines = [...INTRO];
  for (const [group, specs] of groups) {
    lines.push('', `${group}:`);
    for (const spec of specs) {
      const flag = flagText(spec);
      const pad = flag.length + 2 <= width ? ' '.repeat(width - flag.length) : '\n' + ' '.repeat(width + 2);
      lines.push(`  ${flag}${pad}${spec.description}`);
      const details: string[] = [];
      const vars = envNames(spec);
      if (vars.length > 0) details.push(`env: ${vars.join(', ')}`);
      const def = defaultText(spec);
      if (def !== '') details.push(`default: ${def}`);
      if (spec.secret === true) details.push('secret');
      if (details.length > 0) lines.push(`${' '.repeat(width + 2)}[${details.join('; ')}]`);
    }
  }
  lines.push('', 'Other:', `  ${'-h, --help'.padEnd(width)}Show this help and exit.`, `  ${'    --version'.padEnd(width)}Print the version and exit.`);
  return lines.join('\n') + '\n';
}
