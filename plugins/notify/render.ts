// One message from its parts: the run's containers as Watchtower's report (lists by state), the entries
// as its log entries, the title `[tag] Tidewatch updates on <host>`, rendered by the template
// (docs/notifications.md#templates). Without --notification-report a template sees the entries alone, as
// Watchtower's legacy templates do.
import { ContainerReport, LogEntry, NotificationData, Report } from './template/data.js';
import type { CompiledTemplate } from './template/index.js';
import type { MessageParts } from './notifier.js';
import type { ContainerOutcome, OutcomeEntry } from './outcome.js';
import type { NotificationMessage } from './service.js';

export interface RenderSettings {
  readonly host: string;
  readonly titleTag: string;
  readonly skipTitle: boolean;
  /** --notification-report (or porcelain): the template gets `.Report` for update runs. */
  readonly withReport: boolean;
  /**
   * Porcelain: check runs get `.Report` too (a machine-readable report of every run). Otherwise a check's `.Report`
   * is nil, as Watchtower's check endpoint sends it: `default` then prints the check's entries alone
   * (docs/notifications.md#what-is-sent-and-when).
   */
  readonly reportChecks?: boolean;
}

export function notificationTitle(settings: RenderSettings): string {
  return `${settings.titleTag ? `[${settings.titleTag}] ` : ''}Tidewatch updates on ${settings.host}`;
}

function containerReport(outcome: ContainerOutcome): ContainerReport {
  const { target } = outcome;
  return new ContainerReport({
    id: target.id,
    // Watchtower's `.Name` is the Engine's container name, which carries a leading `/` (docs/notifications.md):
    // templates written for it (`trimPrefix "/"`, fixed-width columns) see the same text here.
    name: target.name.startsWith('/') ? target.name : `/${target.name}`,
    imageName: target.image,
    currentImageId: outcome.currentImageId,
    latestImageId: outcome.latestImageId,
    state: outcome.state,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.currentTag ? { currentTag: outcome.currentTag } : {}),
    ...(outcome.latestTag ? { latestTag: outcome.latestTag } : {}),
    ...(outcome.updateKind ? { updateKind: outcome.updateKind } : {}),
    ...(outcome.note ? { note: outcome.note } : {}),
    ...(outcome.currentVersion ? { currentVersion: outcome.currentVersion } : {}),
    ...(outcome.latestVersion ? { latestVersion: outcome.latestVersion } : {}),
    ...(outcome.releaseNotesUrl ? { releaseNotesUrl: outcome.releaseNotesUrl } : {}),
    ...(outcome.findings ? { findings: outcome.findings } : {}),
  });
}

/** Each list sorted by container id, as Watchtower's session report sorts them. */
function reportOf(containers: readonly ContainerOutcome[]): Report {
  const byId = [...containers].sort((a, b) => (a.target.id < b.target.id ? -1 : a.target.id > b.target.id ? 1 : 0));
  const reports = byId.map((c) => ({ state: c.state, report: containerReport(c) }));
  const inState = (state: ContainerOutcome['state']) => reports.filter((r) => r.state === state).map((r) => r.report);
  return new Report({
    scanned: reports.filter((r) => r.state !== 'Skipped').map((r) => r.report),
    updated: inState('Updated'),
    failed: inState('Failed'),
    skipped: inState('Skipped'),
    stale: inState('Stale'),
    fresh: inState('Fresh'),
    restarted: inState('Restarted'),
  });
}

function logEntry(entry: OutcomeEntry): LogEntry {
  return new LogEntry({
    level: entry.level === 'warn' ? 'warning' : entry.level,
    message: entry.message,
    time: entry.time,
    data: entry.container ? { container: `/${entry.container}` } : null,
  });
}

export function messageRenderer(template: CompiledTemplate, settings: RenderSettings): (parts: MessageParts) => NotificationMessage {
  const title = notificationTitle(settings);
  return (parts) => {
    const entries = parts.entries.map(logEntry);
    const report = parts.outcome.kind === 'update' || settings.reportChecks ? reportOf(parts.containers) : null;
    const input = settings.withReport
      ? new NotificationData({
          title,
          host: settings.host,
          entries,
          report,
          ...(parts.outcome.trigger === undefined ? {} : { trigger: parts.outcome.trigger }),
          ...(parts.outcome.actor === undefined ? {} : { actor: parts.outcome.actor }),
        })
      : entries;
    return { title: settings.skipTitle ? '' : title, body: template.render(input) };
  };
}

/** What announcing a pending approval needs (docs/notifications.md#approvals). */
export interface ApprovalNotice {
  readonly container: string;
  readonly image: string;
  readonly currentTag?: string;
  readonly latestTag?: string;
  readonly latestDigest: string;
  readonly updateKind?: string;
  /** The dashboard row under --public-url; '' without it. */
  readonly url: string;
}

/** The one log entry of an approval's message: what waits, and where to decide. */
export function approvalText(notice: ApprovalNotice): string {
  const to = notice.latestTag ?? notice.latestDigest.slice(0, 19);
  const from = notice.currentTag ? ` from ${notice.currentTag}` : '';
  const kind = notice.updateKind && notice.updateKind !== 'digest' ? `${notice.updateKind} update` : 'update';
  return `${notice.container}: the ${kind} to ${to}${from} (${notice.image}) waits for your approval${notice.url ? `: ${notice.url}` : ''}`;
}

/** What announcing a halted rollout needs (docs/notifications.md#rollouts). */
export interface RolloutHaltNotice {
  readonly image: string;
  readonly host: string;
  readonly container: string;
  readonly stage: number;
  readonly error: string;
  readonly rolloutId: string;
}

/** The one log entry of a halted rollout's message: what failed where, and how to go on. */
export function rolloutHaltText(notice: RolloutHaltNotice): string {
  return `rollout of ${notice.image} halted: ${notice.container} on ${notice.host} (stage ${notice.stage}) failed: ${notice.error}; ` +
    `later stages wait until POST /v1/rollouts/${notice.rolloutId}/release or a newer image`;
}

/** Renders a halted rollout's announcement with the configured template: one entry at warning level, no report. */
export function rolloutHaltRenderer(template: CompiledTemplate, settings: RenderSettings): (notice: RolloutHaltNotice) => NotificationMessage {
  const title = `${settings.titleTag ? `[${settings.titleTag}] ` : ''}Tidewatch: rollout halted on ${settings.host}`;
  return (notice) => {
    const entry = new LogEntry({ level: 'warning', message: rolloutHaltText(notice), time: new Date(), data: { container: `/${notice.container}` } });
    const input = settings.withReport
      ? new NotificationData({ title, host: settings.host, entries: [entry], report: null, trigger: 'rollout' })
      : [entry];
    return { title: settings.skipTitle ? '' : title, body: template.render(input) };
  };
}

/** Renders an approval's announcement with the configured template: one entry, `.ApprovalURL` set, no report. */
export function approvalRenderer(template: CompiledTemplate, settings: RenderSettings): (notice: ApprovalNotice) => NotificationMessage {
  const title = `${settings.titleTag ? `[${settings.titleTag}] ` : ''}Tidewatch: approval needed on ${settings.host}`;
  return (notice) => {
    const entry = new LogEntry({ level: 'info', message: approvalText(notice), time: new Date(), data: { container: `/${notice.container}` } });
    const input = settings.withReport
      ? new NotificationData({ title, host: settings.host, entries: [entry], report: null, trigger: 'approval', approvalUrl: notice.url })
      : [entry];
    return { title: settings.skipTitle ? '' : title, body: template.render(input) };
  };
}
