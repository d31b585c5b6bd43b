// The Compose side of a rollback on demand (docs/compose.md#rollback-and-compose). A tag update with
// --compose-rewrite moved the service's `image:` to the new tag; the rollback puts the container back on the
// old one, so the file must go back too, or Compose's next recreation silently undoes the rollback while the
// container is held. The file is rewritten back only while it still names exactly what the container was
// rolled back from (what the update wrote): a file a person edited since is theirs and is left alone, and the
// result's note (which the rollback answer and its audit entry carry) and a warn log line say so.
import type { ApplyResult, Logger, Target } from '../../../core/index.js';
import { rewriteComposeFiles, whyNot } from './file.js';
import { composeOrigin, describeOrigin, joinNotes, staleFileNote, type ComposeOrigin } from './note.js';

async function rewriteBack(origin: ComposeOrigin, target: Target, backRef: string, logger: Logger): Promise<string | undefined> {
  const about = { container: target.name, service: origin.service, files: origin.files, image: target.image, new_image: backRef };
  const outcome = await rewriteComposeFiles(origin, target.image, backRef);
  if (outcome.kind === 'rewritten') {
    const note = `Compose file ${describeOrigin(origin, outcome.file)} rewritten back after the rollback: image ${target.image} → ${backRef}.`;
    logger.info({ ...about, file: outcome.file }, note);
    return note;
  }
  // Nothing to undo: the file already names what the container runs now.
  if (outcome.kind === 'mismatch' && outcome.found === backRef) return undefined;
  const note =
    outcome.kind === 'mismatch'
      ? `Compose file ${describeOrigin(origin, outcome.file)} was not rewritten back after the rollback: it names ${outcome.found}, ` +
        `not ${target.image} as the update left it (edited since, so it is left as it is); the next time Compose recreates ` +
        `${target.name} it runs ${outcome.found}, not ${backRef}.`
      : staleFileNote(target, origin, backRef, whyNot(outcome));
  logger.warn(about, note);
  return note;
}

/** Without --compose-rewrite nothing is written; the note says when the file still names the version rolled back from. */
async function checkOnly(origin: ComposeOrigin, target: Target, backRef: string, logger: Logger): Promise<string | undefined> {
  const outcome = await rewriteComposeFiles(origin, target.image, backRef, false);
  if (outcome.kind !== 'rewritten') return undefined;
  const note = staleFileNote(target, origin, backRef);
  logger.warn({ container: target.name, service: origin.service, file: outcome.file, image: target.image, new_image: backRef }, note);
  return note;
}

/**
 * After a successful rollback of a Compose-managed container that changed its reference (`newImage`, set
 * only then), the file follows it; never fails the rollback.
 */
export async function followRollback(target: Target, result: ApplyResult, rewrite: boolean, logger: Logger): Promise<ApplyResult> {
  const origin = composeOrigin(target.labels);
  const backRef = result.newImage;
  if (!origin || !backRef) return result;
  try {
    const note = rewrite ? await rewriteBack(origin, target, backRef, logger) : await checkOnly(origin, target, backRef, logger);
    return note ? { ...result, note: joinNotes(result.note, note) } : result;
  } catch (err) {
    logger.warn({ container: target.name, err: String(err) }, 'Compose follow-up of the rollback failed');
    return result;
  }
}
