// The cooldown syntax of the `cooldown-delay` label, the same as `--cooldown-delay` (the server's
// parser is not importable from a plugin): `<number><unit>` parts with units s m h d w M (M = 30 days,
// `m` is minutes), combinable (`3d12h`, `1.5w`); digits only are seconds; `0` or empty turns it off.

const DAY_MS = 86_400_000;
const UNITS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: DAY_MS,
  w: 7 * DAY_MS,
  M: 30 * DAY_MS,
};

/** Milliseconds, or throws with a message naming the accepted syntax. */
export function parseCooldownLabel(text: string): number {
  const t = text.trim();
  if (t === '') return 0;
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const part = /(\d+(?:\.\d+)?|\.\d+)([smhdwM])/y;
  let total = 0;
  let pos = 0;
  while (pos < t.length) {
    part.lastIndex = pos;
    const m = part.exec(t);
    if (m === null) {
      throw new Error(`invalid cooldown ${JSON.stringify(text)}: expected parts like 3d12h with units s m h d w M, or 0 for off`);
    }
    total += Number(m[1]) * (UNITS[m[2] as string] ?? 0);
    pos = part.lastIndex;
  }
  return total;
}

/** A short human form for skip reasons: `2d3h`, `45m10s`, `0s`. */
export function formatDuration(ms: number): string {
  let rest = Math.max(0, Math.round(ms / 1000));
  const parts: string[] = [];
  for (const [unit, seconds] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / seconds);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * seconds;
  }
  return parts.slice(0, 2).join('') || '0s';
}
