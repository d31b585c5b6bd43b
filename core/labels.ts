// Container labels: `tidewatch.<key>`, with Watchtower's `com.centurylinklabs.watchtower.<key>` read
// as an alias (docs/interface.md#1-names); the Tidewatch label wins when both are set.

export const LABEL_PREFIX = 'tidewatch.';
export const WATCHTOWER_LABEL_PREFIX = 'com.centurylinklabs.watchtower.';

// The two full label names per key, made once: a name built anew on every read must be flattened and
// hashed before each lookup, and a run reads several keys of every container (docs/performance.md).
// Keys are the code's own words; the bound only keeps a plugin reading keys made from data from growing it.
const labelNames = new Map<string, readonly [string, string]>();
const MAX_KEYS = 256;

function namesOf(key: string): readonly [string, string] {
  let names = labelNames.get(key);
  if (!names) {
    names = [LABEL_PREFIX + key, WATCHTOWER_LABEL_PREFIX + key];
    if (labelNames.size < MAX_KEYS) labelNames.set(key, names);
  }
  return names;
}

export function readLabel(labels: Readonly<Record<string, string>>, key: string): string | undefined {
  const [own, watchtower] = namesOf(key);
  return labels[own] ?? labels[watchtower];
}

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's ParseBool; undefined for a missing or unparsable value (Watchtower treats those as unset). */
export function parseBoolLabel(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  return undefined;
}
