// The Docker runtime's Compose follow-up of a tag update (docs/compose.md#tag-updates-and-compose): the
// check record's note says the update will not survive the next `docker compose up -d`; after the update
// the file is rewritten (--compose-rewrite, when Tidewatch can read it) or the result's note and the log
// say which file and service still name the old reference.
import type { ApplyResult, Logger, Staleness, Target, TidewatchCore, UpdatePlan } from '../../core/index.js';
import { rewriteComposeFiles, type FileOutcome } from './compose-file.js';
import { composeOrigin, joinNotes, pendingNote, pendingTagChange, rewrittenNote, staleFileNote, type ComposeOrigin } from './compose-note.js';
import { nextImageReference } from './compose-rewrite.js';
import { RUNTIME } from './target.js';

/** Adds the Compose note to a pending tag update of a Compose-managed container of this runtime. */
export function tapComposeNotes(core: TidewatchCore, rewrite: boolean): void {
  core.hooks.review.tap(RUNTIME, (staleness: Staleness, target: Target) => {
    if (target.runtime !== RUNTIME) return staleness;
    const note = pendingNote(target, staleness, rewrite);
    return note ? { ...staleness, note: joinNotes(staleness.note, note) } : staleness;
  });
}

/** Why the file was not rewritten, in a few words. */
function whyNot(outcome: FileOutcome): string | undefined {
  switch (outcome.kind) {
    case 'rewritten':
      return undefined;
    case 'absent':
      return 'no project file sets the service\'s image';
    case 'mismatch':
      return `${outcome.file} names ${outcome.found}, not the old reference`;
    case 'interpolated':
      return `${outcome.file} sets the image by variable (${outcome.found}); change the variable instead`;
    case 'inherited':
      return `${outcome.file} sets the image through ${outcome.how === 'extends' ? 'extends' : outcome.how === 'merge' ? 'a merge key' : 'an anchor shared with other services'}`;
    case 'unsupported':
      return `${outcome.file}: ${outcome.why}`;
    case 'unreadable':
      return `cannot read ${outcome.file}: ${outcome.error}`;
    case 'unwritable':
      return `cannot write ${outcome.file}: ${outcome.error}`;
    case 'changed':
      return `${outcome.file} changed while it was being rewritten`;
  }
}

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
  if (result.outcome !== 'updated' || plan.restartOnly || !pendingTagChange(staleness)) return result;
  const origin = composeOrigin(target.labels);
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
