// Pages of the lists that grow (docs/http-api.md#pages): `limit` (default 100, at most 1000; 0 is an empty
// page) and `cursor`, the previous answer's `next`. Pages run from the newest entries to the oldest; the
// store reads each one by index (docs/state.md#pages), so no answer is built whole in memory.
import { PAGE_DEFAULT, PAGE_MAX, parsePageQuery, type PageQuery } from '../../../contracts/index.js';
import { httpErrors } from '../errors.js';
import { querySingle, type Query } from '../query.js';

export { PAGE_DEFAULT, PAGE_MAX };

export type PageParams = PageQuery;

export function parsePage(query: Query): PageParams {
  const page = parsePageQuery(querySingle(query, 'limit'), querySingle(query, 'cursor'));
  if ('parameter' in page) throw httpErrors.badQuery(page.parameter, page.why);
  return page;
}

/** The query-string properties every paged route declares (OpenAPI). */
export const pageQueryProperties = {
  limit: { type: 'string', description: `Entries in this page, 0 to ${PAGE_MAX} (default ${PAGE_DEFAULT})` },
  cursor: { type: 'string', description: "The previous answer's next: the page of older entries" },
} as const;

/** The answer's `next` (OpenAPI). */
export const nextProperty = {
  next: { type: 'string', description: 'Cursor of the following page of older entries; absent on the last page' },
} as const;

/**
 * A page of an in-memory list held oldest first (the run history when no state store is loaded): the cursor
 * is the index of the page's oldest entry, encoded as the store's are.
 */
export function pageOfList<T>(list: readonly T[], page: PageParams): { entries: T[]; next?: string } {
  let end = list.length;
  if (page.cursor !== undefined) {
    const text = /^[A-Za-z0-9_-]{1,16}$/.test(page.cursor) ? Buffer.from(page.cursor, 'base64url').toString('latin1') : '';
    end = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
    if (!(end >= 0 && end <= list.length)) throw httpErrors.badQuery('cursor', 'not one this server gave');
  }
  const start = Math.max(0, end - page.limit);
  const entries = page.limit === 0 ? [] : list.slice(start, end);
  return start > 0 && page.limit > 0 ? { entries, next: Buffer.from(String(start)).toString('base64url') } : { entries };
}
