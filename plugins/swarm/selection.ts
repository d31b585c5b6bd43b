// Which services are watched: the rules containers follow (the core's selection rules,
// docs/swarm.md#which-services-are-watched), read from the service's own labels (Spec.Labels). Without --swarm
// a service must opt in with `tidewatch.enable=true` (or Watchtower's alias). Other runtimes' targets pass.
import { selectionFilter, type SelectionRules, type Target } from '../../core/index.js';
import { RUNTIME } from './target.js';

export interface ServiceSelection extends SelectionRules {
  /** --swarm: every service; otherwise only the ones labelled enable=true. */
  readonly all: boolean;
}

export function selectServices(targets: readonly Target[], options: ServiceSelection): Target[] {
  const watched = selectionFilter({ ...options, labelEnable: options.labelEnable || !options.all });
  return targets.filter((target) => target.runtime !== RUNTIME || watched(target));
}
