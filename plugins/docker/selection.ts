// The Watchtower fork's container filters (the core's selection rules, shared with the Swarm runtime:
// docs/configuration.md#shared-options). Containers of a replacement in progress (renamed aside or staged)
// are never targets, like the fork's `watchtower-old-*` exclusion. Targets of other runtimes pass through untouched.
import { readLabel, selectionFilter, type SelectionRules, type Target } from '../../core/index.js';
import { isReplacementName } from './replace/aside-names.js';

export type SelectionOptions = SelectionRules;

/** The option's scope, else the scope label of Tidewatch's own container (fork semantics). */
export function effectiveScope(optionScope: string, targets: readonly Target[], ownId: string | undefined): string {
  if (optionScope !== '') return optionScope;
  if (!ownId) return '';
  const own = targets.find((t) => t.runtime === 'docker' && t.id === ownId);
  return (own && readLabel(own.labels, 'scope')) || '';
}

export function selectDockerTargets(targets: readonly Target[], options: SelectionOptions): Target[] {
  const selected = selectionFilter(options);
  return targets.filter((target) => target.runtime !== 'docker' || (!isReplacementName(target.name) && selected(target)));
}
