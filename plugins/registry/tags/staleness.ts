// A newer tag for one target under a tag policy (docs/tags.md): the repository's tag list (walked once per
// repository per run, shared by every target on it), the candidates the rules allow (tags/versions.ts), then
// one manifest request per candidate tried, from the highest down, until one serves the running image's
// platform. Only targets with a policy that moves tags get here; the default policy costs nothing more.
// The walk goes on below the chosen tag only when a gate refuses it (lower, docs/tags.md#candidates-and-gates).
import { errorMessage, repositoryName, type ImageReference, type RunContext, type Target } from '../../../core/index.js';
import { RegistryError, type RegistryClient } from '../client.js';
import { listTags } from './list.js';
import { formatPlatform, servesPlatform, tagPlatforms, type Platform, type TagPlatforms } from './platforms.js';
import { currentVersion, newerTags, type Candidate, type TagBump, type TagRules } from './versions.js';

/** Candidates tried at most per target: a repository whose newer tags all lack the platform costs this many manifests. */
export const MAX_CANDIDATES_TRIED = 8;

export interface ChosenTag {
  readonly tag: string;
  readonly digest: string;
  readonly kind: TagBump;
}

export interface TagChoice {
  /** The newer tag chosen, with the digest it names and the bump. */
  readonly chosen?: ChosenTag;
  /** Newer tags passed over for the platform, said in a sentence. */
  readonly note?: string;
  /**
   * The next lower tag that serves the platform, for the core's gate step when a gate refuses the one chosen
   * (docs/plugins.md#candidates-through-gates); it shares the bound of MAX_CANDIDATES_TRIED manifests.
   */
  readonly lower?: () => Promise<ChosenTag | undefined>;
}

export interface TagSourceDeps {
  readonly client: RegistryClient;
  /** The running image's platform (the runtime's answer, else this machine's). */
  readonly platformOf: (target: Target, ctx: RunContext) => Promise<Platform>;
}

const tagListKey = (ref: ImageReference) => `registry:tags:${repositoryName(ref)}`;
const platformsKey = (ref: ImageReference, tag: string) => `registry:tag-platforms:${repositoryName(ref)}:${tag}`;

// The candidates of one running tag under one set of rules, per tag list: a run's list is one array shared by
// every target of the repository, and rules are compiled once per distinct label set (tags/rules.ts), so 200
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

/** Walks the candidates from the highest down, one manifest each, keeping those that serve the platform. */
class PlatformWalk {
  readonly skipped: string[] = [];
  #next = 0;

  constructor(
    private readonly deps: TagSourceDeps,
    private readonly ref: ImageReference & { tag: string },
    private readonly candidates: readonly Candidate[],
    readonly platform: Platform,
    private readonly ctx: RunContext,
  ) {}

  /** The next candidate serving the platform; undefined once MAX_CANDIDATES_TRIED manifests were read. */
  async next(): Promise<ChosenTag | undefined> {
    const { deps, ref, ctx } = this;
    while (this.#next < Math.min(this.candidates.length, MAX_CANDIDATES_TRIED)) {
      const candidate = this.candidates[this.#next++] as Candidate;
      let served: TagPlatforms;
      try {
        served = await ctx.memo(platformsKey(ref, candidate.tag), () => tagPlatforms(deps.client, ref, candidate.tag, ctx.signal));
      } catch (err) {
        // Deleted since the list was read: not a candidate any more.
        if (err instanceof RegistryError && err.status === 404) continue;
        throw new RegistryError(`tag ${candidate.tag} of ${repositoryName(ref)}: ${errorMessage(err)}`, err instanceof RegistryError ? err.status : undefined);
      }
      if (servesPlatform(served.platforms, this.platform)) return { tag: candidate.tag, digest: served.digest, kind: candidate.kind };
      this.skipped.push(candidate.tag);
    }
    return undefined;
  }
}

/** The newer tag to move to, if any; throws when the tag list or a candidate's manifest cannot be read. */
export async function chooseTag(deps: TagSourceDeps, target: Target, ref: ImageReference & { tag: string }, rules: TagRules, ctx: RunContext): Promise<TagChoice> {
  // Aliases, words and (without an explicit policy) floating tags follow their digest: no tag list.
  if (!currentVersion(ref.tag, rules)) return {};
  const tags = await ctx.memo(tagListKey(ref), () => listTags(deps.client, ref, ctx.signal));
  const candidates = candidatesOf(tags, ref.tag, rules);
  if (candidates.length === 0) return {};
  const walk = new PlatformWalk(deps, ref, candidates, await deps.platformOf(target, ctx), ctx);
  const chosen = await walk.next();
  if (chosen) {
    const lower = () => walk.next();
    return walk.skipped.length > 0 ? { chosen, note: noteFor(walk.skipped, walk.platform, 0), lower } : { chosen, lower };
  }
  const untried = candidates.length - Math.min(candidates.length, MAX_CANDIDATES_TRIED);
  return walk.skipped.length > 0 ? { note: noteFor(walk.skipped, walk.platform, untried) } : {};
}
