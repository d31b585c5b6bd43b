// The cooldown syntax of the `cooldown-delay` label, the same as `--cooldown-delay` (core's parser):
// `<number><unit>` parts with units s m h d w M (M = 30 days, `m` is minutes), combinable (`3d12h`,
// `1.5w`); digits only are seconds; `0` or empty turns it off.
import { parseCooldownDuration } from '../../core/index.js';

/** Milliseconds, or throws with a message naming the accepted syntax: the same parser as the option. */
export const parseCooldownLabel = parseCooldownDuration;

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
