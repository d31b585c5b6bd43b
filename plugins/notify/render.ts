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
  /** --notification-report (or porcelain): the template gets `.Report`. */
  readonly withReport: boolean;
}

export function notificationTitle(settings: RenderSettings): string {
  return `${settings.titleTag ? `[${settings.titleTag}] ` : ''}Tidewatch updates on ${settings.host}`;
}

function containerReport(outcome: ContainerOutcome): ContainerReport {
  const { target } = outcome;
  return new ContainerReport({
    id: target.id,
    name: target.name,
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
    const input = settings.withReport
      ? new NotificationData({
          title,
          host: settings.host,
          entries,
          report: reportOf(parts.containers),
          ...(parts.outcome.trigger === undefined ? {} : { trigger: parts.outcome.trigger }),
        })
      : entries;
    return { title: settings.skipTitle ? '' : title, body: template.render(input) };
  };
}
