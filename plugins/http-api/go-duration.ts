// The `timeout` query parameter is a Go duration (spec 8.6) and `timing.duration` is Go's
// `Duration.String()` (spec 2.1), because Watchtower users' scripts send and parse those. The server
// has its own parser for options; plugins may not import server/, so the API keeps this small copy.

const UNIT_NS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n, // micro sign
  '\u03bcs': 1_000n, // Greek mu: Go accepts both spellings
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};
const MAX_NS = (1n << 63n) - 1n;
const PART = /^(\d*)(?:\.(\d*))?([^\d.]+)/;

/**
 * Parses a Go duration (`30s`, `1h30m`, `1.5m`, `0`) into nanoseconds; throws with Go's wording on
 * anything `time.ParseDuration` rejects. A sign is accepted as Go does; callers refuse `<= 0`.
 */
export function parseGoDurationNs(text: string): bigint {
  let rest = text;
  let negative = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    negative = rest.startsWith('-');
    rest = rest.slice(1);
  }
  if (rest === '0') return 0n;
  if (rest === '') throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
  let total = 0n;
  while (rest !== '') {
    const match = PART.exec(rest);
    const whole = match?.[1] ?? '';
    const fraction = match?.[2] ?? '';
    if (!match) {
      const why = /^[\d.]/.test(rest) ? 'missing unit in duration' : 'invalid duration';
      throw new Error(`time: ${why} ${JSON.stringify(text)}`);
    }
    if (whole === '' && fraction === '') throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
    const unitName = match[3] as string;
    const unit = UNIT_NS[unitName];
    if (unit === undefined) {
      throw new Error(`time: unknown unit ${JSON.stringify(unitName)} in duration ${JSON.stringify(text)}`);
    }
    let value = BigInt(whole || '0') * unit;
    if (fraction !== '') value += (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length);
    total += value;
    if (total > MAX_NS) throw new Error(`time: invalid duration ${JSON.stringify(text)}`);
    rest = rest.slice(match[0].length);
  }
  return negative ? -total : total;
}

/** Go's fmtFrac: `v / 10^prec` with the fraction's trailing zeros (and a bare point) dropped. */
function splitFraction(v: bigint, prec: number): [string, bigint] {
  let digits = '';
  let significant = false;
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n;
    significant ||= digit !== 0n;
    if (significant) digits = `${digit}${digits}`;
    v /= 10n;
  }
  return [significant ? `.${digits}` : '', v];
}

/** Go's `time.Duration.String()`: `1h2m3.5s`, `1.25s`, `300ms`, `1.5µs`, `0s`; never rounded. */
export function formatGoDurationNs(ns: bigint): string {
  const negative = ns < 0n;
  let u = negative ? -ns : ns;
  let out: string;
  if (u === 0n) return '0s';
  if (u < 1_000_000_000n) {
    const [prec, unit] = u < 1_000n ? [0, 'ns'] : u < 1_000_000n ? [3, '\u00b5s'] : [6, 'ms'];
    const [frac, whole] = splitFraction(u, prec);
    out = `${whole}${frac}${unit}`;
  } else {
    const [frac, seconds] = splitFraction(u, 9);
    u = seconds;
    out = `${u % 60n}${frac}s`;
    u /= 60n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return negative ? `-${out}` : out;
}

export const msToNs = (ms: number): bigint => BigInt(Math.round(ms * 1e6));
export const nsToMs = (ns: bigint): number => Number(ns) / 1e6;
