// Label rules plugins share that the core does not apply itself (contracts/shared): a per-container switch
// with a global flag, combined as Watchtower combines them (the `no-pull` label and --no-pull, read by the
// no-pull source, the Git source and the Swarm runtime alike). The label names and their Watchtower alias are
// the core's (readLabel, docs/interface.md#1-names).
import { parseBoolLabel, readLabel } from '../../core/index.js';

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
