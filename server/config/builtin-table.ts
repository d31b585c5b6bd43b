// The option table of the built-in plugins alone (no third-party plugin loaded): what `--help` shows by
// default and what the tests enumerate.
import { builtinPlugins } from '../builtins.js';
import { renderTableHelp } from './help.js';
import { servicePlugin } from './service-options.js';
import { buildTable, type OptionTable, type TableSpec } from './table.js';

let table: OptionTable | undefined;

export function builtinTable(): OptionTable {
  return (table ??= buildTable([servicePlugin, ...builtinPlugins()]));
}

/** Every built-in option, in `--help` order. */
export const OPTIONS: readonly TableSpec[] = Object.freeze(builtinTable().entries.map((e) => e.spec));

/** `--help`'s text for this table (or another one). */
export function renderHelp(table: OptionTable = builtinTable()): string {
  return renderTableHelp(table);
}
