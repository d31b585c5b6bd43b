// A target's tag policy, read from its labels (docs/tags.md#labels): `tidewatch.tag.policy|include|exclude|
// transform|prerelease` (Watchtower's `com.centurylinklabs.watchtower.` prefix read as an alias, as for every
// label), What's Up Docker's `wud.tag.include|exclude|transform` as aliases, and the global `--tag-policy`.
// A bad value is the target's error naming the label, never a crash. Patterns are RE2 (linear time, as the
// request filters use: docs/interface.md), bounded in cost by the same limits as a client's `container=`
// pattern (docs/http-api.md#pattern-limits): a label is input too.
import { createRequire } from 'node:module';
import { LABEL_PREFIX, WATCHTOWER_LABEL_PREFIX, parseBoolLabel, patternBoundsViolation } from '../../../core/index.js';
import { TAG_POLICIES, isTagPolicy, type TagPolicy, type TagRules } from './versions.js';

export interface TargetTagRules {
  readonly policy: TagPolicy;
  /** True when a label names the policy (or the global option is not `digest`): the record says which policy applied. */
  readonly shown: boolean;
  /** For `patch`, `minor` and `major`. */
  readonly rules?: TagRules;
}

/** No label, `--tag-policy digest`: the answer is exactly what it was before tag policies. */
export const DEFAULT_TAG_RULES: TargetTagRules = Object.freeze({ policy: 'digest', shown: false });

/** A label whose value cannot be used; the target is reported with this message. */
export class TagLabelError extends Error {
  constructor(label: string, why: string) {
    super(`label ${label}: ${why}`);
    this.name = 'TagLabelError';
  }
}

type Labels = Readonly<Record<string, string>>;

/** The value and the label it came from: `tidewatch.` first, then Watchtower's, then What's Up Docker's. */
function labelOf(labels: Labels, key: string, wud: boolean): { name: string; value: string } | undefined {
  for (const name of [LABEL_PREFIX + key, WATCHTOWER_LABEL_PREFIX + key, ...(wud ? [`wud.${key}`] : [])]) {
    const value = labels[name];
    if (value !== undefined) return { name, value };
  }
  return undefined;
}

type Re2 = import('re2js').RE2JS;

function compile(label: string, pattern: string): Re2 {
  const tooCostly = patternBoundsViolation(pattern);
  if (tooCostly !== undefined) throw new TagLabelError(label, `pattern too costly: ${tooCostly}`);
  // re2js loads with the first tag pattern, not when the plugin does.
  const { RE2JS } = createRequire(import.meta.url)('re2js') as typeof import('re2js');
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    throw new TagLabelError(label, `invalid RE2 pattern: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** An unanchored search, as What's Up Docker's labels mean it (`^…$` to match the whole tag). */
function matcherOf(label: string, pattern: string): (tag: string) => boolean {
  const re = compile(label, pattern);
  return (tag) => re.matcher(tag).find();
}

/** `REGEX => $1.$2` (What's Up Docker's syntax): the formula with the groups of the first match; the tag itself when none. */
export function transformOf(label: string, value: string): (tag: string) => string {
  const arrow = value.indexOf('=>');
  if (arrow === -1) throw new TagLabelError(label, 'expected "REGEX => $1" (What\'s Up Docker\'s form)');
  const pattern = value.slice(0, arrow).trim();
  const formula = value.slice(arrow + 2).trim();
  const re = compile(label, pattern);
  const groups = re.groupCount();
  for (const [, n] of formula.matchAll(/\$(\d+)/g)) {
    if (Number(n) > groups) throw new TagLabelError(label, `$${n} names a group the pattern does not have`);
  }
  return (tag) => {
    const m = re.matcher(tag);
    if (!m.find()) return tag;
    return formula.replace(/\$(\d+)/g, (_, n: string) => m.group(Number(n)) ?? '');
  };
}

// Compiled rules per distinct set of label values: a fleet repeats a few, run after run (docs/performance.md).
const compiled = new Map<string, TargetTagRules | TagLabelError>();
const COMPILED_LIMIT = 1_000;

/**
 * The target's rules; throws TagLabelError for a bad label. `globalPolicy` is `--tag-policy`: a policy
 * only the global option names is not explicit, so floating tags (`1.25`) keep following their digest.
 */
export function tagRulesOf(labels: Labels, globalPolicy: TagPolicy): TargetTagRules {
  const policyLabel = labelOf(labels, 'tag.policy', false);
  if (policyLabel === undefined && globalPolicy === 'digest') return DEFAULT_TAG_RULES;
  const policy = policyLabel?.value.trim() ?? globalPolicy;
  if (!isTagPolicy(policy)) {
    throw new TagLabelError(policyLabel?.name ?? 'tag.policy', `"${policy}" is not one of ${TAG_POLICIES.join(', ')}`);
  }
  if (policy === 'digest' || policy === 'pin') return { policy, shown: true };
  const parts = {
    include: labelOf(labels, 'tag.include', true),
    exclude: labelOf(labels, 'tag.exclude', true),
    transform: labelOf(labels, 'tag.transform', true),
    prerelease: labelOf(labels, 'tag.prerelease', false),
  };
  const key = JSON.stringify([policy, policyLabel !== undefined, parts]);
  let rules = compiled.get(key);
  if (rules === undefined) {
    try {
      rules = compileRules(policy, policyLabel !== undefined, parts);
    } catch (err) {
      if (!(err instanceof TagLabelError)) throw err;
      rules = err;
    }
    if (compiled.size >= COMPILED_LIMIT) compiled.clear();
    compiled.set(key, rules);
  }
  if (rules instanceof TagLabelError) throw rules;
  return rules;
}

type Part = { name: string; value: string } | undefined;

function compileRules(
  policy: 'patch' | 'minor' | 'major',
  explicit: boolean,
  parts: { include: Part; exclude: Part; transform: Part; prerelease: Part },
): TargetTagRules {
  let prerelease = false;
  if (parts.prerelease) {
    const parsed = parseBoolLabel(parts.prerelease.value.trim());
    if (parsed === undefined) throw new TagLabelError(parts.prerelease.name, `"${parts.prerelease.value}" is not a boolean`);
    prerelease = parsed;
  }
  const rules: TagRules = {
    policy,
    explicit,
    prerelease,
    ...(parts.include ? { include: matcherOf(parts.include.name, parts.include.value) } : {}),
    ...(parts.exclude ? { exclude: matcherOf(parts.exclude.name, parts.exclude.value) } : {}),
    ...(parts.transform ? { transform: transformOf(parts.transform.name, parts.transform.value) } : {}),
  };
  return { policy, shown: true, rules };
}
