// The check record's Compose note on a pending tag update (docs/compose.md#tag-updates-and-compose): a review tap
// of the Docker runtime, made at start. The follow-up after an update (follow-up.ts: the file's rewrite) loads
// with the replacement path, at the first update (update-work.ts).
import { STAGES, type Staleness, type Target, type TidewatchCore } from '../../../core/index.js';
import { joinNotes, pendingNote } from './note.js';
import { RUNTIME } from '../target.js';

/** Adds the Compose note to a pending tag update of a Compose-managed container of this runtime. */
export function tapComposeNotes(core: TidewatchCore, rewrite: boolean): void {
  core.hooks.review.tap({ name: RUNTIME, stage: STAGES.review.describe }, (staleness: Staleness, target: Target) => {
    if (target.runtime !== RUNTIME) return staleness;
    const note = pendingNote(target, staleness, rewrite);
    return note ? { ...staleness, note: joinNotes(staleness.note, note) } : staleness;
  });
}
