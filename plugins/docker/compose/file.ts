// --compose-rewrite's file side (docs/compose.md#--compose-rewrite): find which of a project's files sets
// the service's image (the last one that mentions it wins, as Compose merges them), rewrite it with
// compose/rewrite.ts, and replace the file atomically: a temporary file in the same directory with the
// same mode and owner, fsync'ed, renamed over the original, the directory fsync'ed. A file that changed
// while we worked is left alone.
import { chown, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorMessage } from '../../../core/index.js';
import { syncDirectory } from '../../../contracts/shared/atomic-file.js';
import type { ComposeOrigin } from './note.js';
import { rewriteServiceImage, type RewriteOutcome } from './rewrite.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

export type FileOutcome =
  | (RewriteOutcome & { readonly file: string })
  | { readonly kind: 'unreadable'; readonly file: string; readonly error: string }
  | { readonly kind: 'unwritable'; readonly file: string; readonly error: string }
  | { readonly kind: 'changed'; readonly file: string }
  | { readonly kind: 'absent' };

async function writeAtomically(named: string, text: string, expected: string): Promise<FileOutcome | undefined> {
  // A symlinked file is replaced where it really lives; the link stays a link.
  const file = await realpath(named);
  const info = await stat(file);
  const temp = join(dirname(file), `.${basename(file)}.tidewatch-${nodeCrypto().randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(temp, 'wx', info.mode & 0o7777);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(info.mode & 0o7777);
      await handle.sync();
    } finally {
      await handle.close();
    }
    // Keep the owner: a file that would change hands is not rewritten (only root may give a file away).
    if (info.uid !== process.getuid?.() || info.gid !== process.getgid?.()) await chown(temp, info.uid, info.gid);
    if ((await readFile(file, 'utf8')) !== expected) {
      await rm(temp, { force: true });
      return { kind: 'changed', file: named };
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    return { kind: 'unwritable', file: named, error: errorMessage(err) };
  }
  await syncDirectory(dirname(file));
  return undefined;
}

/**
 * Rewrites the service's image from `oldRef` to `newRef` in the project file that sets it. With `write`
 * false nothing is written: the outcome says what a rewrite would do (`rewritten`: the file names `oldRef`).
 */
export async function rewriteComposeFiles(origin: ComposeOrigin, oldRef: string, newRef: string, write = true): Promise<FileOutcome> {
  for (const file of [...origin.files].reverse()) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      return { kind: 'unreadable', file, error: errorMessage(err) };
    }
    const outcome = rewriteServiceImage(text, origin.service, oldRef, newRef);
    if (outcome.kind === 'absent') continue;
    if (outcome.kind !== 'rewritten' || !write) return { ...outcome, file };
    return (await writeAtomically(file, outcome.text, text)) ?? { ...outcome, file };
  }
  return { kind: 'absent' };
}

/** Why the file was not rewritten, in a few words. */
export function whyNot(outcome: FileOutcome): string | undefined {
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
