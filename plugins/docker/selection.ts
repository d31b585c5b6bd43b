// The docker runtime's part of selection: the eight shared selection options are applied by the core
// (`core.applySelection`, docs/configuration.md#shared-options), as for Swarm services; the runtime adds the scope
// of its own container when --scope is not set (the fork's semantics), and never selects a container of a
// replacement in progress (renamed aside or staged), like the fork's `watchtower-old-*` exclusion.
import { readLabel, type Target } from '../../core/index.js';
import { isReplacementName } from './replace/aside-names.js';

/** The option's scope, else the scope label of Tidewatch's own container (fork semantics). */
export function effectiveScope(optionScope: string, targets: readonly Target[], ownId: string | undefined): string {
  if (optionScope !== '') return optionScope;
  if (!ownId) return '';
  const own = targets.find((t) => t.runtime === 'docker' && t.id === ownId);
  return (own && readLabel(own.labels, 'scope')) || '';
}

/** A container of a replacement in progress: never a target. */
export function inReplacement(target: Target): boolean {
  return isReplacementName(target.name);
}
