// A repository's tags, as `GET /v2/<name>/tags/list` pages them (docs/tags.md#what-it-costs): `n=1000` per
// page, then the page the `Link: <…?last=…&n=…>; rel="next"` header names (Distribution 3, GHCR and Docker
// Hub page this way; Distribution 2.8 answers in one piece), up to a bounded number of pages. The walk is
// made once per repository per run (ctx.memo), shared by every container and service on it.
import { repositoryName, type ImageReference } from '../../../core/index.js';
import { RegistryError, type RegistryClient } from '../client.js';
import { header } from '../transport.js';

export const TAGS_PER_PAGE = 1000;
/** Pages walked at most: 50,000 tags at 1,000 a page. */
export const MAX_TAG_PAGES = 50;

/** The query of the `rel="next"` link, when it points at the same repository's tag list; undefined at the end. */
export function nextPageQuery(link: string | undefined, current: URL): string | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (!m || !/\brel\s*=\s*"?next"?/i.test(m[2] ?? '')) continue;
    const next = new URL(m[1] ?? '', current);
    if (next.origin !== current.origin || next.pathname !== current.pathname) {
      throw new RegistryError(`the tag list's next page is elsewhere (${next.pathname})`);
    }
    return next.search.replace(/^\?/, '');
  }
  return undefined;
}

function tagsOf(body: Buffer, name: string): string[] {
  let doc: { tags?: unknown };
  try {
    doc = JSON.parse(body.toString('utf8')) as { tags?: unknown };
  } catch {
    throw new RegistryError(`the tag list of ${name} is not valid JSON`);
  }
  if (doc.tags === null || doc.tags === undefined) return [];
  if (!Array.isArray(doc.tags)) throw new RegistryError(`the tag list of ${name} has no tags array`);
  return doc.tags.filter((tag): tag is string => typeof tag === 'string');
}

/** Every tag of the repository; an error naming the repository when the walk is cut at `maxPages`. */
export async function listTags(client: RegistryClient, ref: ImageReference, signal?: AbortSignal, maxPages = MAX_TAG_PAGES): Promise<string[]> {
  const name = repositoryName(ref);
  const tags: string[] = [];
  const seen = new Set<string>();
  let query: string | undefined = `n=${TAGS_PER_PAGE}`;
  for (let page = 0; query !== undefined; page++) {
    if (page >= maxPages) throw new RegistryError(`the tag list of ${name} has more than ${maxPages} pages; walk cut`);
    if (seen.has(query)) throw new RegistryError(`the tag list of ${name} links back to a page already read`);
    seen.add(query);
    const reply = await client.tagListPage(ref, query, signal);
    for (const tag of tagsOf(reply.body, name)) tags.push(tag);
    query = nextPageQuery(header(reply.headers, 'link'), reply.url);
  }
  return tags;
}
