// The paging parameters of every list that grows (docs/http-api.md#pages): `limit` (default 100, 0 to 1000)
// and `cursor`, the previous answer's `next`. One rule for the API's own routes and the routes plugins
// contribute (/v1/tokens, /v1/approvals); the cursor itself is the store's to judge.
import type { KeyedRecord, PageQuery, StateStore } from './contracts.js';

export const PAGE_DEFAULT = 100;
export const PAGE_MAX = 1000;

/** Why a paging parameter is refused: the parameter's name and a sentence (a 400 `TW_ERR_HTTP_BAD_QUERY`). */
export interface PageQueryError {
  readonly parameter: 'limit' | 'cursor';
  readonly why: string;
}

/** The page a query asks for, from its `limit` and `cursor` values (undefined when absent). */
export function parsePageQuery(limit: string | undefined, cursor: string | undefined): PageQuery | PageQueryError {
  let size = PAGE_DEFAULT;
  if (limit !== undefined) {
    if (!/^\d{1,9}$/.test(limit)) return { parameter: 'limit', why: `expected a non-negative integer, got ${JSON.stringify(limit.slice(0, 32))}` };
    size = Number(limit);
    if (size > PAGE_MAX) return { parameter: 'limit', why: `at most ${PAGE_MAX}, got ${size}` };
  }
  if (cursor === '') return { parameter: 'cursor', why: 'empty value' };
  return { limit: size, ...(cursor === undefined ? {} : { cursor }) };
}

/**
 * Every record of a plugin's collection, oldest first, read a page at a time: for what a plugin holds in memory
 * anyway (the live tokens a request is checked against, the approvals the gates look at), read at start-up.
 */
export function readAllRecords(store: Pick<StateStore, 'recordsPage'>, collection: string): KeyedRecord[] {
  const pages: KeyedRecord[][] = [];
  let cursor: string | undefined;
  do {
    const page = store.recordsPage(collection, { limit: PAGE_MAX, ...(cursor === undefined ? {} : { cursor }) });
    pages.push(page.entries);
    cursor = page.next;
  } while (cursor !== undefined);
  return pages.reverse().flat();
}
