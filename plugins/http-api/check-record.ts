// The container check record of docs/http-api-contract.md §2.2, built from the core's CheckResult. Optional fields are
// left out rather than sent empty, as the spec says "present only when known"; the strings the spec
// types as always present (`digest`, `latest_image_id`, `latest_digest`) are empty when unknown.
import {
  DOCUMENTED_FINDING_KEYS,
  FINDINGS,
  bareDigest,
  findingLines,
  readFinding,
  readLabel,
  repoDigest,
  type CheckResult,
  type SignatureVerdict,
  type Staleness,
  type Target,
} from '../../core/index.js';
import type { FailedCandidate, LastCheck } from '../../contracts/index.js';

/** Where a target lives, present only when its runtime says (docs/hosts.md, docs/swarm.md). */
export interface Placement {
  kind?: string;
  host?: string;
}

/**
 * The target's `kind` and `host`, each only when set, written into `into` (a new object by default): a record
 * built field by field takes them without a spread of a copy.
 */
export function placement(target: Target, into: Placement = {}): Placement {
  if (target.kind) into.kind = target.kind;
  if (target.host) into.host = target.host;
  return into;
}

/** JSON schema properties of `placement`, for every record schema that carries it. */
export const placementProperties = {
  kind: { type: 'string', description: 'What the target is: container (when absent) or service (a Swarm service)' },
  host: { type: 'string', description: 'The engine the target runs on, as configured' },
} as const;

export interface CheckRecord extends Placement {
  name: string;
  image: string;
  image_id: string;
  digest: string;
  update_available: boolean;
  latest_image_id: string;
  latest_digest: string;
  error?: string;
  update_source: string;
  git_repo?: string;
  git_ref?: string;
  git_commit?: string;
  changelog?: string;
  oci_source?: string;
  image_url?: string;
  documentation?: string;
  current_image_version?: string;
  current_revision?: string;
  tag_policy?: string;
  current_tag?: string;
  latest_tag?: string;
  update_kind?: string;
  note?: string;
  /** The signature verdict on latest_digest (docs/signatures.md); absent when verification is off. */
  signature?: SignatureVerdict;
  /** Plugins' own findings by key, each as its one line (docs/plugins.md#findings); absent when there are none. */
  findings?: Record<string, string>;
  timestamp: string;
  /** Present (true) only while the container is held after a rollback (docs/state.md#holds). */
  held?: boolean;
  /** Present only while a candidate that failed in this container is not retried (docs/state.md#failed-candidates). */
  failed_candidate?: FailedCandidateView;
}

/** A remembered failed candidate as the API shows it. */
export interface FailedCandidateView {
  digest: string;
  image_id: string;
  reason: string;
  failed_at: string;
}

export const failedCandidateSchema = {
  type: 'object',
  description:
    'Present while a candidate that failed in this container (did not start or stay up) is not retried: until a newer ' +
    'candidate, a targeted POST /v1/update, or POST /v1/release (docs/state.md#failed-candidates)',
  required: ['digest', 'image_id', 'reason', 'failed_at'],
  properties: {
    digest: { type: 'string', description: 'Registry digest of the failed candidate, empty when unknown' },
    image_id: { type: 'string' },
    reason: { type: 'string', description: 'Why it failed (at most 200 characters)' },
    failed_at: { type: 'string', format: 'date-time' },
  },
} as const;

export function failedCandidateView(failed: FailedCandidate): FailedCandidateView {
  return { digest: failed.digest, image_id: failed.imageId, reason: failed.reason, failed_at: failed.since };
}

/** The repo digest of the running image (core's `repoDigest`, docs/state.md). */
export function currentDigest(target: Target, staleness?: Staleness): string {
  return repoDigest(target, staleness);
}

export const VERSION_LABEL = 'org.opencontainers.image.version';

/** Record fields read from the image's OCI labels (full label names, made once: docs/performance.md). */
const OCI_FIELDS = [
  ['oci_source', 'org.opencontainers.image.source'],
  ['image_url', 'org.opencontainers.image.url'],
  ['documentation', 'org.opencontainers.image.documentation'],
  ['current_image_version', VERSION_LABEL],
  ['current_revision', 'org.opencontainers.image.revision'],
] as const;

export function checkRecord(result: CheckResult): CheckRecord {
  const { target, staleness } = result;
  // The target's watch path: `registry`, `git`, or a third-party plugin's own (docs/plugins.md).
  const source = staleness.source;
  // The serializer writes the fields in the schema's order, whatever order they are set in here.
  const record: CheckRecord = {
    name: target.name,
    image: target.image,
    image_id: target.imageId,
    digest: currentDigest(target, staleness),
    update_available: staleness.error ? false : staleness.stale,
    // A Git check compares commits, never local images (docs/http-api-contract.md §2.2).
    latest_image_id: source === 'git' ? '' : (staleness.latestImageId ?? ''),
    latest_digest: staleness.latestDigest ? bareDigest(staleness.latestDigest) : '',
    update_source: source,
    timestamp: result.checkedAt.toISOString(),
  };
  placement(target, record);
  if (staleness.error) record.error = staleness.error;
  // The findings the API documents, under their documented names (docs/plugins.md#findings).
  const git = readFinding(staleness, FINDINGS.git);
  const gitRepo = git?.repo ?? readLabel(target.labels, 'git.repo');
  const gitRef = git?.ref ?? readLabel(target.labels, 'git.ref');
  if (gitRepo) record.git_repo = gitRepo;
  if (gitRef) record.git_ref = gitRef;
  if (git?.commit) record.git_commit = git.commit;
  // A Git-watched container's changelog, else where the release notes were found (docs/versions.md#release-notes).
  const changelog = git?.changelog ?? (record.update_available ? readFinding(staleness, FINDINGS.releaseNotes)?.url : undefined);
  if (changelog) record.changelog = changelog;
  const signature = readFinding(staleness, FINDINGS.signature);
  if (signature) record.signature = signature.verdict;
  const labels = target.imageLabels;
  for (const [field, label] of OCI_FIELDS) {
    const value = labels[label];
    if (value) record[field] = value;
  }
  tagFields(keptTags(staleness), staleness.stale && !staleness.error, record);
  const findings = otherFindings(staleness);
  if (findings) record.findings = findings;
  return record;
}

/**
 * Every finding the API has no field of its own for, by key, each as its one line (docs/plugins.md#findings):
 * a plugin's finding shows in the record without the API knowing it.
 */
export function otherFindings(staleness: Staleness): Record<string, string> | undefined {
  const lines = findingLines(staleness, DOCUMENTED_FINDING_KEYS);
  return lines.length > 0 ? Object.fromEntries(lines.map((line) => [line.key, line.summary])) : undefined;
}

/** JSON schema of `findings`, for every record that carries it. */
export const findingsProperties = {
  findings: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: "Plugins' own findings about the candidate, by key, each as one line (docs/plugins.md#findings); absent when there are none",
  },
} as const;

/** The tag policy's fields (docs/tags.md#what-the-api-shows), each present only when it applies. */
export type TagFields = Pick<CheckRecord, 'tag_policy' | 'current_tag' | 'latest_tag' | 'update_kind' | 'note'>;

/** The tag policy's answer of a check under the names a last check keeps it (core's LastCheck `tags`). */
export type KeptTags = NonNullable<LastCheck['tags']>;

export function keptTags(staleness: Staleness): KeptTags {
  const tags = readFinding(staleness, FINDINGS.tags);
  return {
    ...(tags?.policy ? { tagPolicy: tags.policy } : {}),
    ...(tags?.currentTag ? { currentTag: tags.currentTag } : {}),
    ...(staleness.latestTag ? { latestTag: staleness.latestTag } : {}),
    ...(tags?.updateKind ? { updateKind: tags.updateKind } : {}),
    ...(staleness.note ? { note: staleness.note } : {}),
  };
}

/** `pending`: stale and not failed; only then is there a kind of update to name. */
export function tagFields(tags: KeptTags, pending: boolean, into: TagFields): void {
  if (tags.tagPolicy) into.tag_policy = tags.tagPolicy;
  if (tags.currentTag) into.current_tag = tags.currentTag;
  if (tags.latestTag && tags.latestTag !== tags.currentTag) into.latest_tag = tags.latestTag;
  if (tags.updateKind && pending) into.update_kind = tags.updateKind;
  if (tags.note) into.note = tags.note;
}

/** JSON schema properties of the tag policy's fields, for every record that carries them. */
export const tagProperties = {
  tag_policy: { type: 'string', description: 'The container\'s tag policy (digest, patch, minor, major, pin), when one applies' },
  current_tag: { type: 'string', description: 'Tag of the running reference, under a tag policy' },
  latest_tag: { type: 'string', description: 'The newer tag chosen, only when it differs from current_tag; latest_digest is then its digest' },
  update_kind: { type: 'string', enum: ['digest', 'patch', 'minor', 'major'], description: 'What kind of update, only when update_available' },
  note: { type: 'string', description: 'A sentence about the check, e.g. a newer tag that exists but not for this platform' },
} as const;

/** JSON schema of one record: the route's serializer and the Swagger description both use it. */
export const checkRecordSchema = {
  type: 'object',
  required: ['name', 'image', 'image_id', 'digest', 'update_available', 'latest_image_id', 'latest_digest', 'update_source', 'timestamp'],
  properties: {
    name: { type: 'string', description: 'Container name' },
    ...placementProperties,
    image: { type: 'string', description: 'Current image reference with tag' },
    image_id: { type: 'string', description: 'Current local image ID' },
    digest: { type: 'string', description: 'Current registry digest when known, else empty' },
    update_available: { type: 'boolean', description: 'Whether a newer image (or commit) is available' },
    latest_image_id: { type: 'string', description: 'Local ID of the newer image when known; empty for Git checks' },
    latest_digest: { type: 'string', description: 'Newest registry digest when known, else empty' },
    error: { type: 'string', description: 'Why this container could not be checked (present only then)' },
    update_source: { type: 'string', description: 'Staleness path used: registry, git, or a plugin\'s own watch path' },
    git_repo: { type: 'string', description: 'Git repository, for Git-watched containers' },
    git_ref: { type: 'string', description: 'Git ref, for Git-watched containers' },
    git_commit: { type: 'string', description: 'Head commit of the ref, when known' },
    changelog: { type: 'string', description: 'Changelog location, when known' },
    oci_source: { type: 'string', description: 'org.opencontainers.image.source of the running image' },
    image_url: { type: 'string', description: 'org.opencontainers.image.url of the running image' },
    documentation: { type: 'string', description: 'org.opencontainers.image.documentation of the running image' },
    current_image_version: { type: 'string', description: 'org.opencontainers.image.version of the running image' },
    current_revision: { type: 'string', description: 'org.opencontainers.image.revision of the running image' },
    ...tagProperties,
    signature: {
      type: 'string',
      enum: ['verified', 'unsigned', 'invalid', 'error'],
      description: 'Signature verdict on latest_digest (docs/signatures.md); absent when verification is off',
    },
    ...findingsProperties,
    timestamp: { type: 'string', format: 'date-time', description: 'When this container was checked' },
    held: { type: 'boolean', description: 'Present (true) while the container is held after a rollback: no update run re-applies the image it was rolled back from' },
    failed_candidate: failedCandidateSchema,
  },
} as const;

/** Something that knows holds and failed candidates by container id (the state store). */
interface Holds {
  hold(id: string): unknown;
  failedCandidate(id: string): FailedCandidate | undefined;
}

/**
 * Sets `held: true` when `holds` says the target is held (docs/state.md#holds), and `failed_candidate` while a
 * failed candidate of it is not retried (docs/state.md#failed-candidates).
 */
export function withHold<R extends { held?: boolean; failed_candidate?: FailedCandidateView }>(record: R, target: Target, holds: Holds | undefined): R {
  if (holds?.hold(target.id)) record.held = true;
  const failed = holds?.failedCandidate(target.id);
  if (failed) record.failed_candidate = failedCandidateView(failed);
  return record;
}
