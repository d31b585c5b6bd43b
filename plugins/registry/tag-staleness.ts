// A newer tag for one target under a tag policy (docs/tags.md): the repository's tag list (walked once per
// repository per run, shared by every target on it), the candidates the rules allow (tag-versions.ts), then
// one manifest request per candidate tried, from the highest down, until one serves the running image's
// platform. Only targets with a policy that moves tags get here; the default policy costs nothing more.
import { errorMessage, repositoryName, type ImageReference, type RunContext, type Target } from '../../core/index.js';
import { RegistryError, type RegistryClient } from './client.js';
import { listTags } from './tag-list.js';
import { formatPlatform, servesPlatform, tagPlatforms, type Platform, type TagPlatforms } from './tag-platforms.js';
import { currentVersion, newerTags, type Candidate, type TagBump, type TagRules } from './tag-versions.js';

/** Candidates tried at most per target: a repository whose newer tags all lack the platform costs this many manifests. */
export const MAX_CANDIDATES_TRIED = 8;

export interface TagChoice {
  /** The newer tag chosen, with the digest it names and the bump. */
  readonly chosen?: { readonly tag: string; readonly digest: string; readonly kind: TagBump };
  /** Newer tags passed over for the platform, said in a sentence. */
  readonly note?: string;
}

export interface TagSourceDeps {
  readonly client: RegistryClient;
  /** The running image's platform (the runtime's answer, else this machine's). */
  readonly platformOf: (target: Target, ctx: RunContext) => Promise<Platform>;
}

const tagListKey = (ref: ImageReference) => `registry:tags:${repositoryName(ref)}`;
const platformsKey = (ref: ImageReference, tag: string) => `registry:tag-platforms:${repositoryName(ref)}:${tag}`;

// The candidates of one running tag under one set of rules, per tag list: a run's list is one array shared by
// every target of the repository, and rules are compiled once per distinct label set (tag-rules.ts), so 200
// containers of 50 repositories read each list once per distinct tag and rules, not once per container.
const candidateCache = new WeakMap<readonly string[], Map<string, WeakMap<TagRules, Candidate[]>>>();

function candidatesOf(tags: readonly string[], current: string, rules: TagRules): Candidate[] {
  let byTag = candidateCache.get(tags);
  if (!byTag) candidateCache.set(tags, (byTag = new Map()));
  let byRules = byTag.get(current);
  if (!byRules) byTag.set(current, (byRules = new WeakMap()));
  let found = byRules.get(rules);
  if (!found) byRules.set(rules, (found = newerTags(current, tags, rules)));
  return found;
}

function noteFor(skipped: readonly string[], platform: Platform, untried: number): string {
  const others = skipped.length - 1 + untried;
  const more = others > 0 ? ` (nor ${others} other newer tag${others === 1 ? '' : 's'}${untried > 0 ? ', not all tried' : ''})` : '';
  return `${skipped[0]} exists, but not for ${formatPlatform(platform)}${more}`;
}

/** The newer tag to move to, if any; throws when the tag list or a candidate's manifest cannot be read. */
export async function chooseTag(deps: TagSourceDeps, target: Target, ref: ImageReference & { tag: string }, rules: TagRules, ctx: RunContext): Promise<TagChoice> {
  // Aliases, words and (without an explicit policy) floating tags follow their digest: no tag list.
  if (!currentVersion(ref.tag, rules)) return {};
  const tags = await ctx.memo(tagListKey(ref), () => listTags(deps.client, ref, ctx.signal));
  const candidates = candidatesOf(tags, ref.tag, rules);
  if (candidates.length === 0) return {};
  const platform = await deps.platformOf(target, ctx);
  const skipped: string[] = [];
  const tried = candidates.slice(0, MAX_CANDIDATES_TRIED);
  for (const candidate of tried) {
    let served: TagPlatforms;
    try {
      served = await ctx.memo(platformsKey(ref, candidate.tag), () => tagPlatforms(deps.client, ref, candidate.tag, ctx.signal));
    } catch (err) {
      // Deleted since the list was read: not a candidate any more.
      if (err instanceof RegistryError && err.status === 404) continue;
      throw new RegistryError(`tag ${candidate.tag} of ${repositoryName(ref)}: ${errorMessage(err)}`, err instanceof RegistryError ? err.status : undefined);
    }
    if (servesPlatform(served.platforms, platform)) {
      const chosen = { tag: candidate.tag, digest: served.digest, kind: candidate.kind };
      return skipped.length > 0 ? { chosen, note: noteFor(skipped, platform, 0) } : { chosen };
    }
    skipped.push(candidate.tag);
  }
  return skipped.length > 0 ? { note: noteFor(skipped, platform, candidates.length - tried.length) } : {};
}
