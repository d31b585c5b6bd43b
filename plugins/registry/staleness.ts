// The registry's answer for one target: compare the digest the registry serves for the target's tag
// with the digests the engine recorded for the running image (RepoDigests). The remote digest is
// memoised per run, so N containers of one image cost one request.
import {
  REGISTRY_PATH,
  createError,
  FINDINGS,
  withFinding,
  type TagFacts,
  errorMessage,
  formatImageReference,
  parseImageReference,
  repositoryName,
  tryParseImageReference,
  type ImageReference,
  type RunContext,
  type Staleness,
  type Target,
} from '../../core/index.js';
import type { RegistryMirrors } from '../../contracts/index.js';
import type { RegistryClient } from './client.js';
import { isDockerHub } from './endpoint.js';
import { digestThroughMirrors, mirrorEndpoint } from './mirrors.js';
import { DEFAULT_TAG_RULES, tagRulesOf } from './tags/rules.js';
import { chooseTag, type ChosenTag, type TagSourceDeps } from './tags/staleness.js';
import type { TagPolicy, TagRules } from './tags/versions.js';

export const SOURCE = REGISTRY_PATH;

/** A check error, never "up to date": the engine knows no registry digest for the running image (docs/engines.md). */
export const noCurrentDigest = createError(
  'TW_ERR_NO_CURRENT_DIGEST',
  (imageId: string) =>
    `the engine records no registry digest for the running image ${imageId || '(unknown)'} (built or loaded locally, or untagged since): its current digest cannot be known`,
  409,
);

interface RepoDigest {
  readonly repository: string | undefined;
  readonly digest: string;
}

/** `repo@sha256:…` → its repository (normalised) and digest. */
function splitRepoDigest(entry: string): RepoDigest | undefined {
  const at = entry.lastIndexOf('@');
  if (at === -1) return undefined;
  const parsed = tryParseImageReference(entry);
  return { repository: parsed ? repositoryName(parsed) : undefined, digest: entry.slice(at + 1) };
}

// The targets of one image share its RepoDigests array (the runtime hands the same one to each): it is
// split once per image, not once per container and question (docs/performance.md).
const splitDigests = new WeakMap<readonly string[], readonly RepoDigest[]>();

function repoDigestsOf(repoDigests: readonly string[]): readonly RepoDigest[] {
  let entries = splitDigests.get(repoDigests);
  if (!entries) {
    entries = repoDigests.map(splitRepoDigest).filter((e) => e !== undefined);
    splitDigests.set(repoDigests, entries);
  }
  return entries;
}

/** The digest the running image has in the target's own repository, else any recorded one. */
export function currentDigestOf(repoDigests: readonly string[], ref: ImageReference): string | undefined {
  const entries = repoDigestsOf(repoDigests);
  const own = repositoryName(ref);
  return (entries.find((e) => e.repository === own) ?? entries[0])?.digest;
}

/** Whether any recorded digest equals the registry's (the image may have been pulled under another name). */
export function matchesRemote(repoDigests: readonly string[], remote: string): boolean {
  return repoDigestsOf(repoDigests).some((entry) => entry.digest === remote);
}

// References are parsed once and shared (the core memoises them): the key is made once per reference
// too, one string object every target of the image hands to ctx.memo (docs/performance.md).
const memoKeys = new WeakMap<ImageReference, string>();

/** Memo key shared by every target of one image reference in a run. */
export function digestMemoKey(ref: ImageReference): string {
  let key = memoKeys.get(ref);
  if (key === undefined) {
    key = `registry:manifest-digest:${formatImageReference(ref)}`;
    memoKeys.set(ref, key);
  }
  return key;
}

/** Tag policies (docs/tags.md): the global `--tag-policy` and how a target's platform is read. */
export interface TagOptions extends Omit<TagSourceDeps, 'client'> {
  readonly policy: TagPolicy;
}

export async function registryStaleness(
  client: RegistryClient,
  target: Target,
  ctx: RunContext,
  tags?: TagOptions,
  mirrors?: RegistryMirrors,
): Promise<Staleness> {
  let ref: ImageReference;
  let rules;
  try {
    ref = parseImageReference(target.image);
    rules = tagRulesOf(target.labels, tags?.policy ?? 'digest');
  } catch (err) {
    return { source: SOURCE, stale: false, error: errorMessage(err) };
  }
  // The default path: the same answer, and the same requests, as before tag policies (docs/tags.md#what-it-costs).
  if (rules === DEFAULT_TAG_RULES) return digestStaleness(client, target, ref, ctx, mirrors);
  const facts: TagFacts = { policy: rules.policy, ...(ref.tag !== undefined ? { currentTag: ref.tag } : {}) };
  const fields = tagFinding(facts);
  // `pin`: never change this container's image, not even its digest; nothing to ask.
  if (rules.policy === 'pin') return { source: SOURCE, stale: false, ...fields, ...currentOf(target, ref) };
  // The running tag's own newer digest: the answer when no newer tag is chosen, and the lowest candidate below them.
  const sameTag = async (note?: string): Promise<Staleness> => {
    const digest = await digestStaleness(client, target, ref, ctx, mirrors);
    return { ...digest, ...(digest.stale ? tagFinding({ ...facts, updateKind: 'digest' }) : fields), ...(note ? { note } : {}) };
  };
  // Only an image that came from a registry moves to another of its tags; a local build has nothing to compare.
  if (rules.rules && ref.tag !== undefined && tags && target.repoDigests.length > 0) {
    const tagged = await tagUpdate({ client, ...tags }, target, { ...ref, tag: ref.tag }, rules.rules, ctx, facts, sameTag);
    if (tagged.staleness) return tagged.staleness;
    return sameTag(tagged.note);
  }
  return sameTag();
}

/** The tag policy's answer as the stale answer's finding (docs/plugins.md#findings). */
function tagFinding(facts: TagFacts): Pick<Staleness, 'findings'> {
  return withFinding({}, FINDINGS.tags, facts);
}

function currentOf(target: Target, ref: ImageReference): Partial<Staleness> {
  const currentDigest = ref.digest ?? (target.repoDigests.length > 0 ? currentDigestOf(target.repoDigests, ref) : undefined);
  return currentDigest ? { currentDigest } : {};
}

/** A newer tag under the target's rules: a stale answer, or only a note (or nothing) for the digest path to complete. */
async function tagUpdate(
  deps: TagSourceDeps,
  target: Target,
  ref: ImageReference & { tag: string },
  rules: TagRules,
  ctx: RunContext,
  facts: TagFacts,
  sameTag: () => Promise<Staleness>,
): Promise<{ staleness?: Staleness; note?: string }> {
  let choice;
  try {
    choice = await chooseTag(deps, target, ref, rules, ctx);
  } catch (err) {
    const error = errorMessage(err);
    ctx.logger.debug({ container: target.name, image: target.image, err: error }, 'tag list check failed');
    return { staleness: { source: SOURCE, stale: false, error, ...currentOf(target, ref), ...tagFinding(facts) } };
  }
  const { chosen, note, lower } = choice;
  const notes = note ? { note } : {};
  // The running image already is the chosen tag's (pulled under another name): nothing to move to.
  if (!chosen || matchesRemote(target.repoDigests, chosen.digest)) return notes;
  const current = currentOf(target, ref);
  const answer = (tag: ChosenTag, extra: Partial<Staleness>): Staleness => ({
    source: SOURCE,
    stale: true,
    ...current,
    latestDigest: tag.digest,
    latestTag: tag.tag,
    ...extra,
    ...tagFinding({ ...facts, updateKind: tag.kind }),
    // Lower candidates, asked for only when a gate refuses this one (docs/tags.md#candidates-and-gates):
    // the next lower tag serving the platform, then the running tag's own newer digest.
    nextCandidate: once(async () => {
      const next = lower ? await lower() : undefined;
      if (!next) {
        const digest = await sameTag();
        return digest.stale && !digest.error ? digest : undefined;
      }
      // A lower tag naming the running image: nothing below it is newer.
      return matchesRemote(target.repoDigests, next.digest) ? undefined : answer(next, {});
    }),
  });
  return { staleness: answer(chosen, notes) };
}

/** `fn` called at most once: a candidate asked twice for the next one gets the same answer, the walk moves once. */
function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= fn());
}

/** Today's answer: the digest the registry serves for the target's own tag against RepoDigests. */
async function digestStaleness(
  client: RegistryClient,
  target: Target,
  ref: ImageReference,
  ctx: RunContext,
  mirrors?: RegistryMirrors,
): Promise<Staleness> {
  // A pinned digest can never move; nothing to ask.
  if (ref.digest) return { source: SOURCE, stale: false, currentDigest: ref.digest };
  // No registry digest for the running image (built or loaded locally, or pulled and then untagged where the
  // runtime cannot tell its digest): "up to date" would be a guess, and a wrong one hides an update for good.
  if (target.repoDigests.length === 0) return { source: SOURCE, stale: false, error: noCurrentDigest(target.imageId).message };
  const currentDigest = currentDigestOf(target.repoDigests, ref);
  let latestDigest: string;
  let mirror: string | undefined;
  try {
    ({ digest: latestDigest, mirror } = await latestDigestOf(client, target, ref, ctx, mirrors));
  } catch (err) {
    const error = errorMessage(err);
    ctx.logger.debug({ container: target.name, image: target.image, err: error }, 'registry check failed');
    return { source: SOURCE, stale: false, error, ...(currentDigest ? { currentDigest } : {}) };
  }
  const matched = matchesRemote(target.repoDigests, latestDigest);
  return {
    source: SOURCE,
    stale: !matched,
    ...(matched ? { currentDigest: latestDigest } : currentDigest ? { currentDigest } : {}),
    latestDigest,
    ...(mirror ? { note: `newer digest found on registry mirror ${mirror}` } : {}),
  };
}

/**
 * The digest the tag has now, memoised per run: from the registry itself, or for a Docker Hub reference on an
 * engine with registry mirrors, through them (mirrors.ts; docs/registry-mirrors.md).
 */
async function latestDigestOf(
  client: RegistryClient,
  target: Target,
  ref: ImageReference,
  ctx: RunContext,
  mirrors: RegistryMirrors | undefined,
): Promise<{ digest: string; mirror?: string }> {
  const askRegistry = () => ctx.memo(digestMemoKey(ref), () => client.manifestDigest(ref, ctx.signal));
  const listed = mirrors && isDockerHub(ref.registry) ? await mirrors.mirrorsFor(target.host) : [];
  if (listed.length === 0) return { digest: await askRegistry() };
  return digestThroughMirrors({
    reference: target.image,
    mirrors: listed,
    askMirror: (mirror) =>
      ctx.memo(`registry:mirror-digest:${mirror}:${digestMemoKey(ref)}`, () => client.manifestDigest(ref, ctx.signal, mirrorEndpoint(mirror))),
    askHub: askRegistry,
    isRunning: (digest) => matchesRemote(target.repoDigests, digest),
  });
}
