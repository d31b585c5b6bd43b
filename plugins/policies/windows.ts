// Update windows (docs/policies.md#update-windows): `CRON;DURATION[;TZ]`, a window opening at each CRON time
// and staying open for DURATION. A window is a start and a length, never a cron matched minute by minute: a
// peer that matched `0 2-6 * * *` against the clock opened five one-minute windows; here that spec opens five
// windows of DURATION each. Times come from croner (time zones and DST included): a window is open at `now`
// exactly when some opening falls in (now - DURATION, now], i.e. when the first opening after now - DURATION
// is not later than now.
import { createRequire } from 'node:module';
import type { Cron } from 'croner';
import { parseGoDuration } from '../../core/index.js';

type Croner = typeof import('croner');
let croner: Croner | undefined;
/** croner loads with the first window (docs/performance.md#memory): a service without one never needs it. */
const cronClass = (): Croner['Cron'] => (croner ??= createRequire(import.meta.url)('croner') as Croner).Cron;

export interface UpdateWindow {
  /** The spec as written, for messages. */
  readonly text: string;
  readonly durationMs: number;
  readonly timezone?: string;
  /** The first opening strictly after `after`, or undefined when the cron never fires again. */
  nextOpening(after: Date): Date | undefined;
}

/** What the windows of one target say at one instant. */
export interface WindowState {
  /** True when no window is configured or one of them is open now. */
  readonly open: boolean;
  /** When the next window opens, while all are closed (undefined when open or when none opens again). */
  readonly next?: Date;
}

/** A label holds several windows separated by `|`; so does the option's variable. */
export const WINDOW_SEPARATOR = '|';
/** The value that means "no window": updates apply at any time (the default). */
export const ALWAYS = 'always';

function checkTimezone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new Error(`unknown time zone "${tz}" (an IANA name such as Europe/Berlin)`);
  }
  return tz;
}

/** Parses one `CRON;DURATION[;TZ]`; throws an Error saying what is wrong and what is accepted. */
export function parseWindow(spec: string): UpdateWindow {
  const text = spec.trim();
  const parts = text.split(';').map((p) => p.trim());
  if (parts.length < 2 || parts.length > 3 || !parts[0] || !parts[1]) {
    throw new Error(`"${text}" is not CRON;DURATION[;TZ] (e.g. "0 3 * * *;2h;Europe/Berlin")`);
  }
  const [pattern, durationText, tzText] = parts as [string, string, string | undefined];
  if (pattern.split(/\s+/).length !== 5) throw new Error(`"${pattern}" must have 5 cron fields (minute hour day month weekday)`);
  let durationMs: number;
  try {
    durationMs = parseGoDuration(durationText);
  } catch {
    throw new Error(`"${durationText}" is not a duration (Go syntax, e.g. 2h30m)`);
  }
  if (durationMs <= 0) throw new Error(`the duration of "${text}" must be positive`);
  const timezone = tzText ? checkTimezone(tzText) : undefined;
  let cron: Cron;
  try {
    cron = new (cronClass())(pattern, { paused: true, ...(timezone ? { timezone } : {}) });
  } catch (err) {
    throw new Error(`"${pattern}" is not a cron expression: ${err instanceof Error ? err.message : String(err)}`);
  }
  return {
    text,
    durationMs,
    ...(timezone ? { timezone } : {}),
    nextOpening: (after) => cron.nextRun(after) ?? undefined,
  };
}

/** Parses a `|`-separated list of windows; `always` (or nothing) means no window. */
export function parseWindows(value: string): UpdateWindow[] {
  const specs = value.split(WINDOW_SEPARATOR).map((s) => s.trim()).filter((s) => s !== '');
  if (specs.length === 1 && specs[0]?.toLowerCase() === ALWAYS) return [];
  return specs.map(parseWindow);
}

/** Whether any of `windows` is open at `now`, and when the next one opens if none is. */
export function windowState(windows: readonly UpdateWindow[], now: Date): WindowState {
  if (windows.length === 0) return { open: true };
  let next: Date | undefined;
  for (const window of windows) {
    const opening = window.nextOpening(new Date(now.getTime() - window.durationMs));
    if (opening && opening.getTime() <= now.getTime()) return { open: true };
    const upcoming = opening ?? window.nextOpening(now);
    if (upcoming && (!next || upcoming < next)) next = upcoming;
  }
  return next ? { open: false, next } : { open: false };
}
