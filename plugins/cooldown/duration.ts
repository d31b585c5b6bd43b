// The cooldown syntax of `--cooldown-delay` and of the `cooldown-delay` label, one parser for both:
// `<number><unit>` parts with units s m h d w M (M = 30 days, `m` is minutes), combinable (`3d12h`,
// `1.5w`); digits only are seconds; `0` or empty turns it off.
import { TidewatchError, type Parser } from '../../core/index.js';

const DAY_MS = 86_400_000;

/** Cooldown units: Go's s/m/h plus days, weeks and 30-day months (`M`, case matters: `m` is minutes). */
const COOLDOWN_UNITS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: DAY_MS,
  w: 7 * DAY_MS,
  M: 30 * DAY_MS,
};

/**
 * Parses a cooldown delay (`--cooldown-delay`, label `cooldown-delay`) into milliseconds: one or more
 * `<number><unit>` parts with units s m h d w M (M = 30 days), e.g. `3d12h`, `1.5w`, `2M`. `0`, digits only
 * (seconds, like the environment durations) and the empty string are accepted; empty and `0` mean off.
 * Negative values are refused: a cooldown cannot point into the future.
 */
export function parseCooldownDuration(text: string): number {
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
      throw new TidewatchError('TW_ERR_DURATION',
        `invalid cooldown ${JSON.stringify(text)}: expected <number><unit> parts with units s m h d w M (M = 30 days), e.g. 3d12h, or 0 for off`, 400,
      );
    }
    total += Number(m[1]) * (COOLDOWN_UNITS[m[2]!] ?? 0);
    pos = part.lastIndex;
  }
  return total;
}

/** Milliseconds, or throws with a message naming the accepted syntax: the same parser as the option. */
export const parseCooldownLabel = parseCooldownDuration;

/** `--cooldown-delay` (its declaration's parser): a bad value names the syntax, as every option's parser does. */
export const parseCooldownOption: Parser<number> = (raw) => {
  try {
    return parseCooldownDuration(raw);
  } catch {
    throw new TidewatchError('TW_ERR_INVALID_VALUE', 'expected a delay such as 12h, 3d12h, 2w or 1M (units s m h d w M, M = 30 days), or 0 for off', 400);
  }
};

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
