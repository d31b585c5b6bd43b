// What Compose does to a tag update, said where the user looks (docs/compose.md#tag-updates-and-compose):
// a container Compose created carries the labels naming its files, its service and its working
// directory; the file still names the old tag, so the next time Compose recreates the container it is back
// on the old tag. Compose recreates when its config hash of the service no longer matches the container's
// label (Tidewatch keeps the label): an `up -d` after any change to the service, `--force-recreate`, or
// `down` then `up` (measured with docker-compose 1.29, test/compose/tag-update-rewrite.test.ts). Pure:
// labels and a staleness answer in, sentences out.

import { isAbsolute, resolve } from 'node:path';
import { FINDINGS, readFinding, type Staleness, type Target } from '../../../core/index.js';

export const COMPOSE_LABELS = {
  configFiles: 'com.docker.compose.project.config_files',
  service: 'com.docker.compose.service',
  workingDir: 'com.docker.compose.project.working_dir',
} as const;

export interface ComposeOrigin {
  readonly service: string;
  /** The project's files, absolute (relative ones are read from the working directory), in Compose's order. */
  readonly files: readonly string[];
}

/** The Compose service and files a container came from, or undefined when Compose did not create it. */
export function composeOrigin(labels: Readonly<Record<string, string>>): ComposeOrigin | undefined {
  const service = labels[COMPOSE_LABELS.service];
  const list = labels[COMPOSE_LABELS.configFiles];
  if (!service || !list) return undefined;
  const workingDir = labels[COMPOSE_LABELS.workingDir];
  const files = list
    .split(',')
    .map((file) => file.trim())
    .filter((file) => file !== '')
    .map((file) => (isAbsolute(file) || !workingDir ? file : resolve(workingDir, file)));
  return files.length > 0 ? { service, files } : undefined;
}

/** `/srv/app/compose.yml (service web)`, or the files joined when there are several. */
export function describeOrigin(origin: ComposeOrigin, file?: string): string {
  return `${file ?? origin.files.join(', ')} (service ${origin.service})`;
}

/** Joins two notes into one text (the source's own note first). */
export function joinNotes(first: string | undefined, second: string | undefined): string | undefined {
  if (!first) return second;
  if (!second) return first;
  return `${first} ${second}`;
}

const RECREATES = 'the next time Compose recreates the container (docker compose up -d after a change to the service, --force-recreate, or down and up)';

/** A tag change is pending for the target: the source chose another tag than the running one. */
export function pendingTagChange(staleness: Staleness): boolean {
  return staleness.stale && !staleness.error && !!staleness.latestTag && staleness.latestTag !== readFinding(staleness, FINDINGS.tags)?.currentTag;
}

/** The check-time note: the update will not survive the next `docker compose up -d` unless the file changes. */
export function pendingNote(target: Target, staleness: Staleness, rewrite: boolean): string | undefined {
  // Every target of every check passes here: the cheap test first.
  if (!pendingTagChange(staleness)) return undefined;
  const origin = composeOrigin(target.labels);
  if (!origin) return undefined;
  const where = describeOrigin(origin);
  const what = `Compose file ${where} names ${target.image}: after the update to ${staleness.latestTag}, ${RECREATES} puts it back on that tag`;
  return rewrite
    ? `${what} unless the file can be rewritten (--compose-rewrite is on; Tidewatch must be able to read and write the file).`
    : `${what}; change the file, or run Tidewatch with --compose-rewrite.`;
}

/** After an update that left the file as it was: it still names the old reference. */
export function staleFileNote(target: Target, origin: ComposeOrigin, newRef: string, why?: string): string {
  return (
    `Compose file ${describeOrigin(origin)} still names ${target.image}: ${RECREATES} puts ` +
    `${target.name} back on it; change it to ${newRef}${why ? ` (not rewritten: ${why})` : ' (or run Tidewatch with --compose-rewrite)'}.`
  );
}

/** After a rewrite. */
export function rewrittenNote(origin: ComposeOrigin, file: string, oldRef: string, newRef: string): string {
  return `Compose file ${describeOrigin(origin, file)} rewritten: image ${oldRef} → ${newRef}.`;
}
