// Prometheus metrics (docs/interface.md §4), fed by the core's event bus, on a registry of our own: two
// APIs in one process (tests, embedders) must not collide in prom-client's global registry.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { CheckResult, TidewatchEvent } from '../../core/index.js';
import { WatchtowerMetrics } from './watchtower-metrics.js';

/** A label value from a plugin's word: short and plain, so a plugin cannot grow the series without bound. */
function labelWord(word: string): string {
  return /^[a-z][a-z0-9_-]{0,31}$/.test(word) ? word : 'other';
}

const SUMMARY_FIELDS = ['scanned', 'updated', 'failed', 'restarted', 'skipped'] as const;

export class ApiMetrics {
  readonly registry = new Registry();
  readonly #scans: Counter<'kind' | 'result'>;
  readonly #lastRun: Record<(typeof SUMMARY_FIELDS)[number], Gauge>;
  readonly #updates: Counter<'result'>;
  readonly #duration: Histogram<'kind'>;
  readonly #registryRequests: Counter<'registry' | 'method' | 'code'>;
  readonly #notifications: Counter<'service' | 'result'>;
  /** Watchtower's series beside these (docs/http-api.md, "Watchtower's series"). */
  readonly #watchtower: WatchtowerMetrics;
  readonly #webhooks: Counter<'receiver' | 'result'>;
  readonly #signatures: Counter<'result'>;
  readonly #deferred: Counter;
  readonly #refused: Counter<'by' | 'reason'>;
  readonly #findings: Counter<'key'>;
  /** Runs in flight: their kind and start, since the closing events do not repeat them. */
  readonly #running = new Map<string, { kind: string; startedAt: number }>();

  /** `pendingApprovals`: read at each scrape (docs/policies.md#metrics), so approvals kept across a restart count at once. */
  constructor(sources: { pendingApprovals?: () => number } = {}) {
    const registers = [this.registry];
    this.#scans = new Counter({
      name: 'tidewatch_scans_total',
      help: 'Update and check runs, by kind and result (success or failure)',
      labelNames: ['kind', 'result'],
      registers,
    });
    this.#lastRun = Object.fromEntries(
      SUMMARY_FIELDS.map((field) => [
        field,
        new Gauge({ name: `tidewatch_containers_${field}`, help: `Containers ${field} in the last update run`, registers }),
      ]),
    ) as Record<(typeof SUMMARY_FIELDS)[number], Gauge>;
    this.#updates = new Counter({
      name: 'tidewatch_container_updates_total',
      help: 'Container replacements, by result (success or failure)',
      labelNames: ['result'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'tidewatch_scan_duration_seconds',
      help: 'Duration of update and check runs',
      labelNames: ['kind'],
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    });
    this.#registryRequests = new Counter({
      name: 'tidewatch_registry_requests_total',
      help: 'Registry HTTP requests, by registry, method and status code',
      labelNames: ['registry', 'method', 'code'],
      registers,
    });
    this.#notifications = new Counter({
      name: 'tidewatch_notifications_total',
      help: 'Notifications, by service and final result (sent, or failed after its retries)',
      labelNames: ['service', 'result'],
      registers,
    });
    this.#watchtower = new WatchtowerMetrics(this.registry);
    this.#webhooks = new Counter({
      name: 'tidewatch_webhooks_total',
      help: 'Webhook requests of the configured receivers, by result (accepted, duplicate, ignored, rejected)',
      labelNames: ['receiver', 'result'],
      registers,
    });
    this.#signatures = new Counter({
      name: 'tidewatch_signature_verifications_total',
      help: 'Signature verifications made (cached verdicts not counted), by result (docs/signatures.md)',
      labelNames: ['result'],
      registers,
    });
    const pendingApprovals = sources.pendingApprovals ?? (() => 0);
    new Gauge({
      name: 'tidewatch_approvals_pending',
      help: 'Updates waiting for a person\'s approval (docs/policies.md#approvals)',
      registers,
      collect() {
        this.set(pendingApprovals());
      },
    });
    this.#deferred = new Counter({
      name: 'tidewatch_updates_deferred',
      help: 'Stale containers an update run left for their next update window (docs/policies.md#update-windows)',
      registers,
    });
    this.#refused = new Counter({
      name: 'tidewatch_candidates_refused_total',
      help: "Update candidates a gate refused in update runs (a lower one may have passed), by gate and the gate's reason code (docs/interface.md#metrics)",
      labelNames: ['by', 'reason'],
      registers,
    });
    // By key only: the keys are the loaded plugins' declarations, so the series stay few (docs/plugins.md#findings).
    this.#findings = new Counter({
      name: 'tidewatch_findings_total',
      help: 'Findings plugins reported on stale containers in check and update runs, by finding key (docs/plugins.md#findings)',
      labelNames: ['key'],
      registers,
    });
    collectDefaultMetrics({ register: this.registry });
  }

  onEvent(event: TidewatchEvent): void {
    this.#watchtower.onEvent(event);
    switch (event.type) {
      case 'scan_started':
        this.#running.set(event.data.run_id, { kind: event.data.kind, startedAt: Date.parse(event.timestamp) });
        break;
      case 'scan_completed': {
        const kind = this.#finish(event.data.run_id, event.timestamp, 'success');
        if (kind === 'update') {
          const data: Partial<Record<(typeof SUMMARY_FIELDS)[number], number>> = event.data;
          for (const field of SUMMARY_FIELDS) this.#lastRun[field].set(data[field] ?? 0);
        }
        break;
      }
      case 'scan_failed':
        this.#finish(event.data.run_id, event.timestamp, 'failure');
        break;
      case 'update_completed':
        this.#updates.inc({ result: 'success' });
        break;
      case 'update_failed':
        this.#updates.inc({ result: 'failure' });
        break;
      case 'registry_request':
        this.#registryRequests.inc({ registry: event.data.registry, method: event.data.method, code: event.data.code });
        break;
      case 'candidates_refused':
        for (const r of event.data.refusals) this.#refused.inc({ by: labelWord(r.by ?? 'other'), reason: labelWord(r.code ?? 'other') });
        break;
      case 'signature_verification':
        this.#signatures.inc({ result: event.data.result });
        break;
      case 'notification':
        this.#notifications.inc({ service: event.data.service, result: event.data.result });
        break;
      case 'webhook':
        this.#webhooks.inc({ receiver: event.data.receiver, result: event.data.result });
        break;
      case 'run_report':
        this.#countFindings(event.data.kind === 'check' ? event.data.report.results : event.data.report.checks);
        if (event.data.kind === 'update') {
          const deferred = event.data.report.skipped.filter((s) => s.reason.startsWith('window ')).length;
          if (deferred > 0) this.#deferred.inc(deferred);
        }
        break;
      default:
        break;
    }
  }

  #countFindings(checks: readonly CheckResult[]): void {
    for (const { staleness } of checks) {
      if (!staleness.stale || staleness.error) continue;
      for (const key of Object.keys(staleness.findings ?? {})) this.#findings.inc({ key });
    }
  }

  #finish(runId: string, timestamp: string, result: 'success' | 'failure'): string | undefined {
    const run = this.#running.get(runId);
    if (!run) return undefined;
    this.#running.delete(runId);
    this.#scans.inc({ kind: run.kind, result });
    this.#duration.observe({ kind: run.kind }, Math.max(0, Date.parse(timestamp) - run.startedAt) / 1000);
    return run.kind;
  }
}
