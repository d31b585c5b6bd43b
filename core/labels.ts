// Container labels: `tidewatch.<key>`, with Watchtower's `com.centurylinklabs.watchtower.<key>` read
// as an alias (docs/interface.md#names); the Tidewatch label wins when both are set.
import type { Target } from './types.js';

export const LABEL_PREFIX = 'tidewatch.';
export const WATCHTOWER_LABEL_PREFIX = 'com.centurylinklabs.watchtower.';
/** Marks Tidewatch's own container. */
export const SELF_LABELS = ['tidewatch', 'com.centurylinklabs.watchtower'] as const;

export function readLabel(labels: Readonly<Record<string, string>>, key: string): string | undefined {
  return labels[LABEL_PREFIX + key] ?? labels[WATCHTOWER_LABEL_PREFIX + key];
}

export function targetLabel(target: Target, key: string): string | undefined {
  return readLabel(target.labels, key);
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

export function isSelfLabelled(labels: Readonly<Record<string, string>>): boolean {
  return SELF_LABELS.some((key) => parseBoolLabel(labels[key]) === true);
}

/**
 * A per-container switch with a global flag (`monitor-only`, `no-pull`), as Watchtower combines them:
 * label OR flag; with `labelTakePrecedence`, a label that is set decides alone.
 */
export function labelOrGlobal(
  labels: Readonly<Record<string, string>>,
  key: string,
  global: boolean,
  labelTakePrecedence: boolean,
): boolean {
  const label = parseBoolLabel(readLabel(labels, key));
  if (labelTakePrecedence && label !== undefined) return label;
  return label === true || global;
}
