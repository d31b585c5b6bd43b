// The Docker runtime's Compose follow-up of a tag update (docs/compose.md#tag-updates-and-compose): the
// check record's note says the update will not survive the next `docker compose up -d`; after the update
// the file is rewritten (--compose-rewrite, when Tidewatch can read it) or the result's note and the log
// say which file and service still name the old reference. The check record's note is note-tap.ts's.
import type { ApplyResult, Logger, Target, UpdatePlan } from '../../../core/index.js';
import { rewriteComposeFiles, whyNot } from './file.js';
import { composeOrigin, joinNotes, pendingTagChange, rewrittenNote, staleFileNote, type ComposeOrigin } from './note.js';
import { followRollback } from './rollback.js';
import { nextImageReference } from './rewrite.js';

async function follow(origin: ComposeOrigin, target: Target, newRef: string, rewrite: boolean, logger: Logger): Promise<string> {
  const about = { container: target.name, service: origin.service, files: origin.files, image: target.image, new_image: newRef };
  if (!rewrite) {
    const note = staleFileNote(target, origin, newRef);
    logger.warn(about, note);
    return note;
  }
  const outcome = await rewriteComposeFiles(origin, target.image, newRef);
  if (outcome.kind === 'rewritten') {
    const note = rewrittenNote(origin, outcome.file, target.image, newRef);
    logger.info({ ...about, file: outcome.file }, note);
    return note;
  }
  const note = staleFileNote(target, origin, newRef, whyNot(outcome));
  logger.warn(about, note);
  return note;
}

/**
 * After the runtime's apply: for an `updated` Compose-managed container moved to another tag, rewrites
 * its file (with --compose-rewrite) and puts the outcome in the result's `note`. Never fails the update.
 */
export async function followCompose(plan: UpdatePlan, result: ApplyResult, rewrite: boolean, logger: Logger): Promise<ApplyResult> {
  const { target, staleness } = plan;
  if (result.outcome !== 'updated' || plan.restartOnly) return result;
  // A rollback on demand put it back on a local image, under another reference when the update changed tag.
  if (staleness.targetImageId !== undefined) return followRollback(target, result, rewrite, logger);
  if (!pendingTagChange(staleness)) return result;
  const origin = composeOrigin(target.labels, target.imageLabels);
  // What the runtime created the container on (ApplyResult.newImage), else the same rule spelled out here.
  const newRef = result.newImage ?? nextImageReference(target.image, staleness.latestTag as string, staleness.latestDigest);
  if (!origin || !newRef) return result;
  try {
    return { ...result, note: joinNotes(result.note, await follow(origin, target, newRef, rewrite, logger)) };
  } catch (err) {
    logger.warn({ container: target.name, err: String(err) }, 'Compose follow-up failed');
    return result;
  }
}
