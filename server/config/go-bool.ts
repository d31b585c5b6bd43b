// Booleans exactly as Go's strconv.ParseBool reads them (decisions §2): Watchtower users' environments hold
// values like `1`, `t` or `TRUE`, and anything outside this set must be a startup error rather than a guess.

const TRUE_VALUES: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE_VALUES: ReadonlySet<string> = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** What the error message says is accepted; shared with the option table's messages. */
export const GO_BOOL_ACCEPTED = 'expected a boolean: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false or False';

/** True when `text` is one of the twelve spellings Go accepts. */
export function isGoBool(text: string): boolean {
  return TRUE_VALUES.has(text) || FALSE_VALUES.has(text);
}

/** Go's strconv.ParseBool. No trimming and no other spellings (`yes`, `on`, `TrUe` all throw). */
export function parseGoBool(text: string): boolean {
  if (TRUE_VALUES.has(text)) return true;
  if (FALSE_VALUES.has(text)) return false;
  throw new Error(GO_BOOL_ACCEPTED);
}
