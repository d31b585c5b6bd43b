// Watchtower's own metric series on /v1/metrics, beside Tidewatch's, with Watchtower's meaning, so the
// dashboards and widgets built for Watchtower keep working (docs/http-api.md, "Watchtower's series"):
// Homepage's widget keeps the lines that start with `watchtower`, splits each on a space and reads the
// number, so these series carry no labels.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { TidewatchEvent } from '../../core/index.js';

const GAUGES = ['scanned', 'updated', 'failed', 'restarted', 'skipped'] as const;
type GaugeField = (typeof GAUGES)[number];

export class WatchtowerMetrics {
  readonly #lastRun: Record<GaugeField, Gauge>;
  readonly #scans: Counter;
  readonly #skipped: Counter;
  readonly #skippedTotal: Counter;
  readonly #restartedTotal: Counter;
  /** Update runs in flight: only they are Watchtower's scans (checks never are). */
  readonly #updateRuns = new Set<string>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.#lastRun = Object.fromEntries(
      GAUGES.map((field) => [
        field,
        new Gauge({ name: `watchtower_containers_${field}`, help: `Containers ${field} in the last update run (Watchtower's series)`, registers }),
      ]),
    ) as Record<GaugeField, Gauge>;
    this.#scans = new Counter({
      name: 'watchtower_scans_total',
      help: "Update runs since start, the skipped ones included (Watchtower's series)",
      registers,
    });
    this.#skipped = new Counter({
      name: 'watchtower_scans_skipped',
      help: "Update runs skipped because another was running (Watchtower's series)",
      registers,
    });
    // The fork's names since 2025: the skipped-scan counter with `_total` (the old name stays for Homepage's
    // widget), and the restarts summed over every run.
    this.#skippedTotal = new Counter({
      name: 'watchtower_scans_skipped_total',
      help: "Update runs skipped because another was running (the Watchtower fork's series)",
      registers,
    });
    this.#restartedTotal = new Counter({
      name: 'watchtower_containers_restarted_total',
      help: "Containers restarted for a dependency since start (the Watchtower fork's series)",
      registers,
    });
  }

  onEvent(event: TidewatchEvent): void {
    switch (event.type) {
      case 'scan_started':
        if (event.data.kind === 'update') this.#updateRuns.add(event.data.run_id);
        break;
      case 'scan_completed':
        if (this.#updateRuns.delete(event.data.run_id)) {
          const data: Partial<Record<GaugeField, number>> = event.data;
          this.#record(data);
        }
        break;
      case 'scan_failed':
        // Watchtower registers a failed run as a scan whose counts are all zero.
        if (this.#updateRuns.delete(event.data.run_id)) this.#record({});
        break;
      case 'scan_skipped':
        // A skipped run counts as a scan and a skipped one, as in Watchtower; the gauges keep the last
        // run that ran (Watchtower zeroes them, which blanks a widget until the next run).
        this.#scans.inc();
        this.#skipped.inc();
        this.#skippedTotal.inc();
        break;
      default:
        break;
    }
  }

  #record(counts: Partial<Record<GaugeField, number>>): void {
    this.#scans.inc();
    for (const field of GAUGES) this.#lastRun[field].set(counts[field] ?? 0);
    this.#restartedTotal.inc(counts.restarted ?? 0);
  }
}
