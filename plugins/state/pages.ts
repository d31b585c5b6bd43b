// Pages of the lists that grow (docs/state.md#pages): each list is ordered by an indexed key — (time, seq)
// for the audit trail and the runs, seq for a plugin's collection — and a page is one range read on that
// index, newest first, never the whole list. The cursor is that key of the page's oldest entry, opaque to
// callers (base64url), so a server database could hand out its own.
import { createError } from '../../core/index.js';

export const stateErrors = {
  badCursor: createError('TW_ERR_STATE_CURSOR', () => "invalid 'cursor' parameter: not one this server gave", 400),
};

/** A page's position: the oldest entry's key, the next page starts below it. */
export type PageKey = readonly number[];

export function encodeCursor(key: PageKey): string {
  return Buffer.from(key.join('.')).toString('base64url');
}

export function decodeCursor(cursor: string, parts: number): PageKey {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('latin1') : '';
  const key = text.split('.').map(Number);
  if (text === '' || key.length !== parts || key.some((n) => !Number.isSafeInteger(n))) throw stateErrors.badCursor();
  return key;
}

/** A page from rows read newest first, one more than `limit` (that one says whether a next page exists). */
export function pageOf<R, T>(rows: readonly R[], limit: number, keyOf: (row: R) => PageKey, entryOf: (row: R) => T): { entries: T[]; next?: string } {
  const kept = rows.slice(0, limit);
  const oldest = kept.at(-1);
  const entries = kept.reverse().map(entryOf);
  return rows.length > limit && oldest !== undefined ? { entries, next: encodeCursor(keyOf(oldest)) } : { entries };
}
