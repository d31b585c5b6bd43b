// A finished run as Watchtower's session report sees it (docs/notifications.md#the-report): every
// selected container in one state, plus the log-like entries a template prints. Built from the core's
// internal `run_report` event. Containers muted with the label `tidewatch.notify=false` are left out.
import {
  DOCUMENTED_FINDING_KEYS,
  FINDINGS,
  findingLines,
  parseBoolLabel,
  readFinding,
  readLabel,
  type ApplyResult,
  type CheckResult,
  type EventPayloads,
  type SignatureCheck,
  type SnapshotRef,
  type Target,
} from '../../core/index.js';
import type { NotificationLevel } from './options.js';
import { shortID } from './template/data.js';
import { versionChange } from './version-change.js';

const VERSION_LABEL = 'org.opencontainers.image.version';

export type ContainerState = 'Skipped' | 'Scanned' | 'Updated' | 'Failed' | 'Fresh' | 'Stale' | 'Restarted';

export interface ContainerOutcome {
  readonly target: Target;
  readonly state: ContainerState;
  readonly currentImageId: string;
  /** The newer image (id, or registry digest when it was not pulled); the current one when fresh. */
  readonly latestImageId: string;
  readonly error?: string;
  /** The tag fields of the check (docs/notifications.md#tag-updates), when the source gave them. */
  readonly currentTag?: string;
  readonly latestTag?: string;
  readonly updateKind?: string;
  /** The check's note, or for `Updated` the update's own (say, the Compose file still names the old tag). */
  readonly note?: string;
  /** The signature verdict on the newer image, when signatures are verified (docs/signatures.md). */
  readonly signature?: SignatureCheck;
  /** For `Stale`: a candidate that failed before and was not retried (docs/state.md#failed-candidates), and why. */
  readonly notRetried?: string;
  /**
   * A rollback on demand (docs/state.md#rollback-on-demand): the container goes back to its previous image,
   * `previousImage` (the reference it runs after an `Updated`), and is never announced as a new image.
   */
  readonly rollback?: { readonly previousImage: string };
  /** The versions and release notes of the update (docs/versions.md), when known. */
  readonly currentVersion?: string;
  readonly latestVersion?: string;
  readonly releaseNotesUrl?: string;
  /** Plugins' own findings about a pending or applied candidate (docs/plugins.md#findings), when there are any. */
  readonly findings?: readonly { key: string; summary: string }[];
  /** The volume snapshot the update took, or its rollback restored (docs/snapshots.md). */
  readonly snapshot?: SnapshotRef;
}

/** How the state plugin's gate words a failed candidate it skips (docs/state.md#failed-candidates). */
const NOT_RETRIED = 'not retried: ';

export interface OutcomeEntry {
  readonly level: Exclude<NotificationLevel, 'updates'>;
  readonly message: string;
  readonly time: Date;
  /** The container the entry is about, for split-by-container and muting. */
  readonly container?: string;
}

export interface RunOutcome {
  readonly kind: 'check' | 'update';
  /** Who started the run (`webhook:<receiver>`, `schedule`, …), when the core said; templates read `.Trigger`. */
  readonly trigger?: string;
  /** Who started it by name (docs/people.md); templates read `.Actor`. */
  readonly actor?: string;
  /** In discovery order. */
  readonly containers: readonly ContainerOutcome[];
  readonly entries: readonly OutcomeEntry[];
}

export function isMuted(target: Target): boolean {
  return parseBoolLabel(readLabel(target.labels, 'notify')) === false;
}

function latestOf(check: CheckResult, result?: ApplyResult): string {
  return result?.newImageId ?? check.staleness.latestImageId ?? check.staleness.latestDigest ?? check.target.imageId;
}

/** The tag fields a report entry carries: the version change only while stale or once updated. */
function tagsOf(check: CheckResult, result: ApplyResult | undefined): Partial<ContainerOutcome> {
  const { staleness } = check;
  const note = (result?.outcome === 'updated' ? result.note : undefined) ?? staleness.note;
  const pending = staleness.stale && !staleness.error;
  const tags = readFinding(staleness, FINDINGS.tags);
  return {
    ...(tags?.currentTag ? { currentTag: tags.currentTag } : {}),
    ...(pending && staleness.latestTag ? { latestTag: staleness.latestTag } : {}),
    ...(pending && tags?.updateKind ? { updateKind: tags.updateKind } : {}),
    ...(note ? { note } : {}),
    ...versionsOf(check, pending),
    ...findingsOf(check, pending),
  };
}

/** The findings the HTTP API has no field of its own for, while an update is pending or was applied. */
function findingsOf({ staleness }: CheckResult, pending: boolean): Pick<ContainerOutcome, 'findings'> {
  const lines = pending ? findingLines(staleness, DOCUMENTED_FINDING_KEYS) : [];
  return lines.length > 0 ? { findings: lines } : {};
}

/** The running version (its image's label, else its tag under a version policy) and the update's (docs/versions.md). */
function versionsOf({ target, staleness }: CheckResult, pending: boolean): Partial<ContainerOutcome> {
  const current = target.imageLabels[VERSION_LABEL]?.trim() || (staleness.latestTag ? readFinding(staleness, FINDINGS.tags)?.currentTag : undefined);
  const latestVersion = readFinding(staleness, FINDINGS.version);
  const notesUrl = readFinding(staleness, FINDINGS.releaseNotes)?.url;
  return {
    ...(current ? { currentVersion: current } : {}),
    ...(pending && latestVersion ? { latestVersion } : {}),
    ...(pending && notesUrl ? { releaseNotesUrl: notesUrl } : {}),
  };
}

/** The previous image a rollback run puts the container back on: the staleness answer of the state plugin. */
function rollbackOf(check: CheckResult, result: ApplyResult | undefined): Pick<ContainerOutcome, 'rollback'> {
  const { staleness, target } = check;
  if (staleness.targetImageId === undefined) return {};
  return { rollback: { previousImage: result?.newImage ?? staleness.targetImage ?? target.image } };
}

function classify(check: CheckResult, result: ApplyResult | undefined): ContainerOutcome {
  const { target, staleness } = check;
  const base = {
    target,
    currentImageId: target.imageId,
    latestImageId: latestOf(check, result),
    ...tagsOf(check, result),
    ...rollbackOf(check, result),
    ...(result?.snapshot ? { snapshot: result.snapshot } : {}),
  };
  if (staleness.error) return { ...base, state: 'Skipped', error: staleness.error };
  switch (result?.outcome) {
    case 'updated':
      return { ...base, state: 'Updated', currentImageId: result.oldImageId ?? target.imageId };
    case 'restarted':
      return { ...base, state: 'Restarted' };
    case 'failed':
      return { ...base, state: 'Failed', error: result.error ?? 'update failed' };
    case 'skipped':
      return staleness.stale ? { ...base, state: 'Stale' } : { ...base, state: 'Skipped', error: result.reason ?? 'skipped' };
    default:
      return staleness.stale ? { ...base, state: 'Stale' } : { ...base, state: 'Fresh', latestImageId: target.imageId };
  }
}

/** Watchtower-like log lines for what happened to one container (what `default-legacy` prints). */
function entriesOf(outcome: ContainerOutcome, time: Date): OutcomeEntry[] {
  const { target } = outcome;
  const about = { time, container: target.name };
  // A tag update says what changes (`: nginx 1.25.3-alpine → 1.25.4-alpine (patch)`), and its note follows.
  const change = versionChange(target.image, outcome);
  const suffix = change ? `: ${change}` : '';
  const note: OutcomeEntry[] = outcome.note ? [{ ...about, level: 'warn', message: outcome.note }] : [];
  if (outcome.rollback) return [...rollbackEntries(outcome, about), ...snapshotEntries(outcome, about)];
  return [...stateEntries(outcome, about, suffix, note), ...snapshotEntries(outcome, about)];
}

/** What a notification says of the volumes (docs/snapshots.md): a snapshot taken, or restored with a rollback. */
function snapshotEntries(outcome: ContainerOutcome, about: { time: Date; container: string }): OutcomeEntry[] {
  const { snapshot } = outcome;
  if (!snapshot || (outcome.state !== 'Updated' && outcome.state !== 'Failed')) return [];
  const volumes = snapshot.volumes.join(', ');
  const message = snapshot.restored
    ? `Restored the volumes of /${outcome.target.name} (${volumes}) from snapshot ${snapshot.id}`
    : `Snapshot ${snapshot.id} of /${outcome.target.name}'s volumes (${volumes}) taken before the update`;
  return [{ ...about, level: 'info', message }];
}

function stateEntries(outcome: ContainerOutcome, about: { time: Date; container: string }, suffix: string, note: OutcomeEntry[]): OutcomeEntry[] {
  const { target } = outcome;
  switch (outcome.state) {
    case 'Stale':
      // Announced once per candidate like any pending update (docs/notifications.md#no-repeats): one line.
      if (outcome.notRetried) return [{ ...about, level: 'warn', message: `Not retrying ${target.image} for /${target.name}: ${outcome.notRetried}` }];
      return [{ ...about, level: 'info', message: `Found new ${target.image} image (${shortID(outcome.latestImageId)})${suffix}` }, ...note];
    case 'Updated':
      return [
        { ...about, level: 'info', message: `Found new ${target.image} image (${shortID(outcome.latestImageId)})${suffix}` },
        { ...about, level: 'info', message: `Updated /${target.name} from ${shortID(outcome.currentImageId)} to ${shortID(outcome.latestImageId)}${suffix}` },
        ...note,
      ];
    case 'Restarted':
      return [{ ...about, level: 'info', message: `Restarted /${target.name} after a dependency was updated` }];
    case 'Failed':
      return [{ ...about, level: 'error', message: `Unable to update container "/${target.name}": ${outcome.error}` }];
    case 'Skipped':
      return [{ ...about, level: 'warn', message: `Could not check /${target.name}: ${outcome.error}` }];
    default:
      return [];
  }
}

/** A rollback says what it is: nothing was "found new", the container went back (docs/notifications.md). */
function rollbackEntries(outcome: ContainerOutcome, about: { time: Date; container: string }): OutcomeEntry[] {
  const { target } = outcome;
  const from = `${target.image} (${shortID(outcome.currentImageId)})`;
  const to = `${outcome.rollback?.previousImage ?? target.image} (${shortID(outcome.latestImageId)})`;
  switch (outcome.state) {
    case 'Updated':
      // Its note says what became of the Compose file (docs/compose.md#rollback-and-compose).
      return [
        { ...about, level: 'info', message: `Rolled back /${target.name} from ${from} to ${to}` },
        ...(outcome.note ? [{ ...about, level: 'warn' as const, message: outcome.note }] : []),
      ];
    case 'Failed':
      return [{ ...about, level: 'error', message: `Unable to roll back container "/${target.name}" to ${to}: ${outcome.error}` }];
    case 'Stale':
      return [{ ...about, level: 'warn', message: `Did not roll back /${target.name} to ${to}: it is monitored only` }];
    default:
      return [];
  }
}

export function runOutcome(event: EventPayloads['run_report']): RunOutcome {
  const time = new Date();
  const checks = event.kind === 'check' ? event.report.results : event.report.checks;
  const results = new Map<string, ApplyResult>();
  const notRetried = new Map<string, string>();
  if (event.kind === 'update') {
    for (const result of event.report.results) results.set(result.target.id, result);
    for (const { target, reason } of event.report.skipped) {
      if (reason.startsWith(NOT_RETRIED)) notRetried.set(target.id, reason.slice(NOT_RETRIED.length));
    }
  }
  const containers = checks.filter((check) => !isMuted(check.target)).map((check) => {
    const outcome = withSignature(classify(check, results.get(check.target.id)), check);
    const why = outcome.state === 'Stale' ? notRetried.get(check.target.id) : undefined;
    return why === undefined ? outcome : { ...outcome, notRetried: why };
  });
  return {
    kind: event.kind,
    ...(event.trigger === undefined ? {} : { trigger: event.trigger }),
    ...(event.actor === undefined ? {} : { actor: event.actor.name }),
    containers,
    entries: containers.flatMap((outcome) => [...entriesOf(outcome, time), ...signatureEntries(outcome, time, event.kind)]),
  };
}

function withSignature(outcome: ContainerOutcome, check: CheckResult): ContainerOutcome {
  const signature = readFinding(check.staleness, FINDINGS.signature);
  return signature ? { ...outcome, signature } : outcome;
}

/**
 * The signature verdict of a stale container, one line (docs/signatures.md#verdicts): info when verified,
 * a warning otherwise (under enforce the update was skipped, under warn it went ahead).
 */
function signatureEntries(outcome: ContainerOutcome, time: Date, kind: RunOutcome['kind']): OutcomeEntry[] {
  const sig = outcome.signature;
  if (!sig) return [];
  const about = { time, container: outcome.target.name };
  if (sig.verdict === 'verified') return [{ ...about, level: 'info', message: `Signature of ${outcome.target.image} (${shortID(sig.digest)}) verified: ${sig.reason}` }];
  const action = kind === 'check' ? '' : sig.policy === 'enforce' ? ', update skipped' : ', updated anyway (warn)';
  return [{ ...about, level: 'warn', message: `Signature of ${outcome.target.image} (${shortID(sig.digest)}) ${sig.verdict}${action}: ${sig.reason}` }];
}
