// SLSA provenance v1 (`https://slsa.dev/provenance/v1`, docs/attestations.md#provenance): which source repository
// and which builder made the candidate. The source is read where the builders put it — GitHub's generators in
// `buildDefinition.externalParameters.workflow.repository`, others in `externalParameters.source` or as the first
// `git+` URI among `resolvedDependencies` — and compared without its `git+` prefix, scheme, trailing `.git` and
// `@ref`. Patterns: `*` matches within one path segment, `**` across segments.
export const PROVENANCE_PREDICATE = 'https://slsa.dev/provenance/v1';

export interface ProvenanceRule {
  readonly source?: RegExp;
  readonly builder?: RegExp;
  /** The rule as written, for reasons. */
  readonly text: { readonly source?: string; readonly builder?: string };
}

export interface ProvenanceFacts {
  readonly source: string;
  readonly builder: string;
  readonly signer: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const MAX_PATTERN = 512;

function globToRegExp(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else out += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** `source=PATTERN,builder=PATTERN` (either or both); throws naming what is wrong. */
export function parseProvenanceRule(raw: string): ProvenanceRule | undefined {
  const value = raw.trim();
  if (value === '') return undefined;
  const text: { source?: string; builder?: string } = {};
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const pattern = part.slice(eq + 1).trim();
    if (eq < 0 || (key !== 'source' && key !== 'builder')) throw new Error('expected source=PATTERN and/or builder=PATTERN, comma-separated');
    if (pattern === '' || pattern.length > MAX_PATTERN) throw new Error(`${key}= needs a pattern of 1 to ${MAX_PATTERN} characters`);
    if (text[key] !== undefined) throw new Error(`${key}= is given twice`);
    text[key] = key === 'source' ? normalizeSource(pattern) : pattern;
  }
  return {
    ...(text.source !== undefined ? { source: globToRegExp(text.source) } : {}),
    ...(text.builder !== undefined ? { builder: globToRegExp(text.builder) } : {}),
    text,
  };
}

/** `git+https://github.com/org/app.git@refs/heads/main` → `github.com/org/app`. */
export function normalizeSource(uri: string): string {
  let s = uri.trim().replace(/^git\+/, '').replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const at = s.indexOf('@', s.indexOf('/') + 1);
  if (at > 0) s = s.slice(0, at);
  return s.replace(/\/+$/, '').replace(/\.git$/, '');
}

function sourceOf(definition: Json): string | undefined {
  const external = isObject(definition['externalParameters']) ? definition['externalParameters'] : {};
  const workflow = isObject(external['workflow']) ? external['workflow'] : {};
  if (typeof workflow['repository'] === 'string') return workflow['repository'];
  const source = external['source'];
  if (typeof source === 'string') return source;
  if (isObject(source) && typeof source['uri'] === 'string') return source['uri'];
  const deps = Array.isArray(definition['resolvedDependencies']) ? definition['resolvedDependencies'].slice(0, 64) : [];
  for (const dep of deps) if (isObject(dep) && typeof dep['uri'] === 'string' && dep['uri'].startsWith('git+')) return dep['uri'];
  return undefined;
}

/** The facts of one verified SLSA v1 predicate, or why it names no source or builder. */
export function readProvenance(predicate: unknown, signer: string): ProvenanceFacts | { why: string } {
  if (!isObject(predicate) || !isObject(predicate['buildDefinition']) || !isObject(predicate['runDetails'])) {
    return { why: 'the provenance is not SLSA v1 (no buildDefinition and runDetails)' };
  }
  const source = sourceOf(predicate['buildDefinition']);
  const builder = isObject(predicate['runDetails']['builder']) ? predicate['runDetails']['builder']['id'] : undefined;
  if (typeof builder !== 'string' || builder === '') return { why: 'the provenance names no builder id' };
  if (source === undefined) return { why: 'the provenance names no source repository' };
  return { source: normalizeSource(source).slice(0, 512), builder: builder.slice(0, 512), signer };
}

/** Why the facts do not satisfy the rule, or undefined when they do. */
export function provenanceMismatch(facts: ProvenanceFacts, rule: ProvenanceRule): string | undefined {
  if (rule.source && !rule.source.test(facts.source)) return `source ${facts.source} does not match ${rule.text.source ?? ''}`;
  if (rule.builder && !rule.builder.test(facts.builder)) return `builder ${facts.builder} does not match ${rule.text.builder ?? ''}`;
  return undefined;
}
