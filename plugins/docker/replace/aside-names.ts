// The names a replacement gives containers while it is in progress. A name is the one thing about a
// container that can change atomically after creation (labels cannot), so it is where an interrupted
// replacement leaves the facts its repair needs: the original name, and whether the old container was
// running before Tidewatch stopped it.
//
//   <name>--tidewatch-old-<short id>-running|stopped   the old container, moved aside (kept until proven)
//   <name>--tidewatch-new-<short id of the old one>    a new container not yet under the name
//   <name>--tidewatch-replaced-<short id>              an old container whose successor was proven but
//                                                      which could not be removed: remove, never restore

/** In every name a replacement in progress gives (the start-up repair lists by it, replace/repair.ts). */
export const ASIDE_MARKER = '--tidewatch-';
const OLD = /^(.+)--tidewatch-old-([0-9a-f]{12})-(running|stopped)$/;
const NEW = /^(.+)--tidewatch-new-([0-9a-f]{12})$/;
const REPLACED = /^(.+)--tidewatch-replaced-([0-9a-f]{12})$/;

export interface AsideName {
  readonly originalName: string;
  /** Short id of the old container the marker belongs to. */
  readonly shortId: string;
  /** Only for old containers: whether it ran before the replacement stopped it. */
  readonly wasRunning: boolean;
}

export function shortId(id: string): string {
  return id.slice(0, 12);
}

export function oldAsideName(name: string, id: string, wasRunning: boolean): string {
  return `${name}--tidewatch-old-${shortId(id)}-${wasRunning ? 'running' : 'stopped'}`;
}

export function stagingName(name: string, oldId: string): string {
  return `${name}--tidewatch-new-${shortId(oldId)}`;
}

export function replacedName(name: string, id: string): string {
  return `${name}--tidewatch-replaced-${shortId(id)}`;
}

export function parseReplacedName(name: string): AsideName | undefined {
  const match = REPLACED.exec(name.replace(/^\//, ''));
  if (!match) return undefined;
  return { originalName: match[1] as string, shortId: match[2] as string, wasRunning: false };
}

export function parseOldAsideName(name: string): AsideName | undefined {
  const match = OLD.exec(name.replace(/^\//, ''));
  if (!match) return undefined;
  return { originalName: match[1] as string, shortId: match[2] as string, wasRunning: match[3] === 'running' };
}

export function parseStagingName(name: string): AsideName | undefined {
  const match = NEW.exec(name.replace(/^\//, ''));
  if (!match) return undefined;
  return { originalName: match[1] as string, shortId: match[2] as string, wasRunning: false };
}

/** True for any name a replacement in progress uses: such containers are never targets themselves. */
export function isReplacementName(name: string): boolean {
  // Every container of every run is asked: the common answer without three backtracking patterns.
  if (!name.includes(ASIDE_MARKER)) return false;
  return parseOldAsideName(name) !== undefined || parseStagingName(name) !== undefined || parseReplacedName(name) !== undefined;
}
