// The labels that mark Tidewatch's own container (Watchtower's `com.centurylinklabs.watchtower=true` too), so that
// discovery knows it and a self-update's successor and orchestrator are made without them (docs/image.md#self-update).
import { parseBoolLabel } from '../../../core/index.js';

/** Marks Tidewatch's own container. */
export const SELF_LABELS = ['tidewatch', 'com.centurylinklabs.watchtower'] as const;

export function isSelfLabelled(labels: Readonly<Record<string, string>>): boolean {
  return SELF_LABELS.some((key) => parseBoolLabel(labels[key]) === true);
}
