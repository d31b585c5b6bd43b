// Reads /v1/metrics the way Homepage's Watchtower widget does (its proxy keeps the lines that start
// with `watchtower`, splits each on a space into name and value; the widget shows the number): no
// Prometheus parser, so labels, timestamps or a renamed series show up as missing numbers.
export interface WidgetReading {
  /** Every `watchtower…` line, name to value text, as the widget's proxy builds it. */
  readonly raw: Record<string, string | undefined>;
  /** The number the widget shows for a series, NaN when it would show nothing sensible. */
  number(name: string): number;
}

export function readLikeHomepage(metricsText: string): WidgetReading {
  const raw: Record<string, string | undefined> = {};
  for (const line of metricsText.split('\n').filter((s) => s.startsWith('watchtower'))) {
    const [key, value] = line.split(' ');
    if (key !== undefined) raw[key] = value;
  }
  return { raw, number: (name) => (raw[name] === undefined ? NaN : Number(raw[name])) };
}

/** The series Watchtower's dashboards read (docs/http-api.md, "Watchtower's series"). */
export const WATCHTOWER_SERIES = [
  'watchtower_containers_scanned',
  'watchtower_containers_updated',
  'watchtower_containers_failed',
  'watchtower_containers_restarted',
  'watchtower_scans_total',
  'watchtower_scans_skipped',
] as const;
