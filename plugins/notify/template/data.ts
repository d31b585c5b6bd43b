// The data a notification template sees, shaped like Watchtower's (docs/notifications.md, "Templates"):
// `.Title`, `.Host`, `.Entries` (log entries) and `.Report` (nil without --notification-report). The
// report's lists and a container's `Name`, `State`, `CurrentImageID.ShortID`… are Go methods, which the
// executor calls when a field name resolves to one.
import { GoTime } from './gotime.js';
import { GoStruct, NIL_MAP, NamedString } from './values.js';

export { GoTime } from './gotime.js';

/** Watchtower's short id: 12 characters, without a `sha256:` prefix (another prefix is kept). */
export function shortID(longID: string): string {
  const sep = longID.indexOf(':');
  let offset = 0;
  let length = 12;
  if (sep >= 0) {
    if (longID.slice(0, sep) === 'sha256') offset = sep + 1;
    else length += sep + 1;
  }
  return longID.length >= offset + length ? longID.slice(offset, offset + length) : longID;
}

export class ImageID extends NamedString {
  get goType(): string {
    return 'types.ImageID';
  }
  ShortID(): string {
    return shortID(this.value);
  }
}

export class ContainerID extends NamedString {
  get goType(): string {
    return 'types.ContainerID';
  }
  ShortID(): string {
    return shortID(this.value);
  }
}

/** A container's state in a session, as Watchtower names it. */
export type ContainerState = 'Unknown' | 'Skipped' | 'Scanned' | 'Updated' | 'Failed' | 'Fresh' | 'Stale' | 'Restarted';

export interface ContainerReportInit {
  id: string;
  name: string;
  imageName: string;
  currentImageId: string;
  latestImageId: string;
  state: ContainerState;
  error?: string;
  monitorOnly?: boolean;
  newContainerId?: string;
  /** Tidewatch's tag fields (docs/notifications.md#tag-updates); empty strings when absent. */
  currentTag?: string;
  latestTag?: string;
  updateKind?: string;
  note?: string;
  /** The versions and release notes location (docs/notifications.md#versions-and-release-notes). */
  currentVersion?: string;
  latestVersion?: string;
  releaseNotesUrl?: string;
  /** Plugins' own findings about the candidate, in the order written (docs/notifications.md#findings). */
  findings?: readonly { key: string; summary: string }[];
}

/** A plugin's finding about the container's candidate (docs/plugins.md#findings): its key and its one line. */
export class FindingReport extends GoStruct {
  readonly #key: string;
  readonly #summary: string;
  constructor(key: string, summary: string) {
    super();
    this.#key = key;
    this.#summary = summary;
  }
  get goType(): string {
    return '*tidewatch.Finding';
  }
  Key(): string {
    return this.#key;
  }
  Summary(): string {
    return this.#summary;
  }
}

/** One container of the report; in Go every accessor is a method, and it is an `error` (Error()). */
export class ContainerReport extends GoStruct {
  private readonly init: Readonly<ContainerReportInit>;
  constructor(init: ContainerReportInit) {
    super();
    this.init = { ...init };
  }
  get goType(): string {
    return '*session.ContainerStatus';
  }
  ID(): ContainerID {
    return new ContainerID(this.init.id);
  }
  Name(): string {
    return this.init.name;
  }
  CurrentImageID(): ImageID {
    return new ImageID(this.init.currentImageId);
  }
  LatestImageID(): ImageID {
    return new ImageID(this.init.latestImageId);
  }
  ImageName(): string {
    return this.init.imageName;
  }
  Error(): string {
    return this.init.error ?? '';
  }
  State(): string {
    return this.init.state;
  }
  IsMonitorOnly(): boolean {
    return this.init.monitorOnly ?? false;
  }
  NewContainerID(): ContainerID {
    return new ContainerID(this.init.newContainerId ?? '');
  }
  // Tidewatch's own: not in Watchtower's model, so its templates never ask for them (docs/notifications.md#tag-updates).
  /** The tag of the running reference. */
  CurrentTag(): string {
    return this.init.currentTag ?? '';
  }
  /** The newer tag chosen, only when it differs from the current one. */
  LatestTag(): string {
    return this.init.latestTag ?? '';
  }
  /** `digest`, `patch`, `minor` or `major` while an update is available or was applied. */
  UpdateKind(): string {
    return this.init.updateKind ?? '';
  }
  /** A sentence for the user: a newer tag without this platform, a Compose file that still names the old tag. */
  Note(): string {
    return this.init.note ?? '';
  }
  /** The running version: its image's `org.opencontainers.image.version`, else its tag under a version policy. */
  CurrentVersion(): string {
    return this.init.currentVersion ?? '';
  }
  /** The version the update leads to (docs/versions.md), while one is available or was applied. */
  LatestVersion(): string {
    return this.init.latestVersion ?? '';
  }
  /** Where the release notes of the update are, with --release-notes (docs/versions.md#release-notes). */
  ReleaseNotesURL(): string {
    return this.init.releaseNotesUrl ?? '';
  }
  /** Plugins' own findings while an update is available or was applied: `{{range .Findings}}{{.Key}}: {{.Summary}}{{end}}`. */
  Findings(): FindingReport[] {
    return (this.init.findings ?? []).map((finding) => new FindingReport(finding.key, finding.summary));
  }
}

export interface ReportInit {
  scanned?: ContainerReport[];
  updated?: ContainerReport[];
  failed?: ContainerReport[];
  skipped?: ContainerReport[];
  stale?: ContainerReport[];
  fresh?: ContainerReport[];
  restarted?: ContainerReport[];
}

const byPriority = ['updated', 'restarted', 'failed', 'skipped', 'stale', 'fresh', 'scanned'] as const;

/** The session report: each list is a method, `All` the unique containers (most significant state first) by id. */
export class Report extends GoStruct {
  private readonly lists: Required<ReportInit>;
  constructor(init: ReportInit = {}) {
    super();
    this.lists = {
      scanned: init.scanned ?? [],
      updated: init.updated ?? [],
      failed: init.failed ?? [],
      skipped: init.skipped ?? [],
      stale: init.stale ?? [],
      fresh: init.fresh ?? [],
      restarted: init.restarted ?? [],
    };
  }
  get goType(): string {
    return '*session.report';
  }
  Scanned(): ContainerReport[] {
    return this.lists.scanned;
  }
  Updated(): ContainerReport[] {
    return this.lists.updated;
  }
  Failed(): ContainerReport[] {
    return this.lists.failed;
  }
  Skipped(): ContainerReport[] {
    return this.lists.skipped;
  }
  Stale(): ContainerReport[] {
    return this.lists.stale;
  }
  Fresh(): ContainerReport[] {
    return this.lists.fresh;
  }
  Restarted(): ContainerReport[] {
    return this.lists.restarted;
  }
  All(): ContainerReport[] {
    const seen = new Set<string>();
    const all: ContainerReport[] = [];
    for (const key of byPriority) {
      for (const c of this.lists[key]) {
        const id = c.ID().value;
        if (!seen.has(id)) {
          seen.add(id);
          all.push(c);
        }
      }
    }
    return all.sort((a, b) => (a.ID().value < b.ID().value ? -1 : a.ID().value > b.ID().value ? 1 : 0));
  }
}

/** Log levels as Watchtower's templates see them (a warning is `warning`). */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warning' | 'error' | 'fatal' | 'panic';

export interface LogEntryInit {
  level: LogLevel | string;
  message: string;
  time: Date | GoTime | string;
  data?: Record<string, unknown> | null;
}

/** One log entry: fields Message, Data (a map), Time (Go's time.Time) and Level, in Go's order. */
export class LogEntry extends GoStruct {
  readonly Message: string;
  /** The entry's fields; a nil map (NIL_MAP) when it has none, as in Go. */
  readonly Data: Readonly<Record<string, unknown>>;
  readonly Time: GoTime;
  readonly Level: string;
  constructor(init: LogEntryInit) {
    super();
    this.Message = init.message;
    this.Data = init.data ?? NIL_MAP;
    this.Time = init.time instanceof GoTime ? init.time : GoTime.from(init.time);
    this.Level = init.level;
  }
  get goType(): string {
    return '*notifications.notificationEntry';
  }
}

export interface NotificationDataInit {
  title: string;
  host: string;
  entries?: LogEntry[];
  report?: Report | null;
  /** Who started the run (docs/notifications.md): `.Trigger` in a template. */
  trigger?: string;
  /** Who started the run by name (docs/people.md): `.Actor` in a template. */
  actor?: string;
  /** A pending approval's dashboard link (docs/policies.md#notifications-and-home-assistant): `.ApprovalURL`. */
  approvalUrl?: string;
}

/** The root of a report-mode template (`notifications.Data`); legacy mode renders the entries alone. */
export class NotificationData extends GoStruct {
  /** `.Report` is Go's `types.Report` interface: nil prints `<nil>`. */
  static override readonly interfaceFields = { Report: 'types.Report' };
  readonly Title: string;
  readonly Host: string;
  readonly Entries: LogEntry[];
  readonly Report: Report | null;
  // A method, not a field: Watchtower's data has no such field, so `{{.}}` and json.v1 print what they did.
  readonly #trigger: string;
  readonly #actor: string;
  readonly #approvalUrl: string;
  constructor(init: NotificationDataInit) {
    super();
    this.Title = init.title;
    this.Host = init.host;
    this.Entries = init.entries ?? [];
    this.Report = init.report ?? null;
    this.#trigger = init.trigger ?? '';
    this.#actor = init.actor ?? '';
    this.#approvalUrl = init.approvalUrl ?? '';
  }
  /**
   * `{{.ApprovalURL}}`: in the message announcing a pending approval, the container's row in the dashboard under
   * --public-url (never a link that approves by itself); empty in run reports and without --public-url.
   */
  ApprovalURL(): string {
    return this.#approvalUrl;
  }
  /** `{{.Trigger}}`: who started the run (`schedule`, `api`, `webhook:<receiver>`…); empty when unknown. */
  Trigger(): string {
    return this.#trigger;
  }
  /**
   * `{{.Actor}}`: who started the run by name (docs/people.md#a-name-on-every-decision): a token's name, a
   * person signed in with SSO, `mqtt`, a webhook receiver, `schedule`, `startup`; empty when unknown.
   */
  Actor(): string {
    return this.#actor;
  }
  get goType(): string {
    return 'notifications.Data';
  }
  /**
   * Watchtower's own JSON shape of the data (what `json.v1` prints); JSON.stringify of the result gives
   * the same document, compact (times are RFC 3339 text).
   */
  MarshalJSON(): Record<string, unknown> {
    // Keys in Go's sorted map order, so JSON.stringify matches json.v1 (Go sorts map keys).
    const reports = (list: ContainerReport[]) =>
      list.map((c) => {
        const item: Record<string, unknown> = { currentImageId: c.CurrentImageID().ShortID() };
        if (c.Error() !== '') item.error = c.Error();
        item.id = c.ID().ShortID();
        item.imageName = c.ImageName();
        item.latestImageId = c.LatestImageID().ShortID();
        item.name = c.Name();
        item.state = c.State();
        return item;
      });
    const r = this.Report;
    return {
      entries: this.Entries.map((e) => ({
        data: e.Data === NIL_MAP ? null : e.Data,
        level: e.Level,
        message: e.Message,
        time: e.Time,
      })),
      host: this.Host,
      report: r
        ? {
            failed: reports(r.Failed()),
            fresh: reports(r.Fresh()),
            restarted: reports(r.Restarted()),
            scanned: reports(r.Scanned()),
            skipped: reports(r.Skipped()),
            stale: reports(r.Stale()),
            updated: reports(r.Updated()),
          }
        : null,
      title: this.Title,
    };
  }
}

/** What a template renders: the data (report mode) or the log entries alone (legacy mode). */
export type TemplateInput = NotificationData | readonly LogEntry[];
