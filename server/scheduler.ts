// Periodic update runs: --schedule (cron with an optional seconds field and @ descriptors, plus
// robfig/cron's `@every <duration>` that Watchtower users have in their configs) or --interval.
// Scheduled runs share the one update lock with the API: a run that finds it busy is skipped, the
// next tick tries again (Watchtower's SkipIfStillRunning).
import { createRequire } from 'node:module';
import { TidewatchError } from '../core/index.js';

type Croner = typeof import('croner');
let croner: Croner | undefined;
/** croner loads with the first cron expression (docs/performance.md#memory): `--interval` and `@every` need none. */
const Cron = (...args: ConstructorParameters<Croner['Cron']>): InstanceType<Croner['Cron']> =>
  new (croner ??= createRequire(import.meta.url)('croner') as Croner).Cron(...args);

export interface Schedule {
  /** When the next run is due, for the startup log line. */
  next(): Date | undefined;
  stop(): void;
}

export type ScheduleSpec = { readonly cron: string } | { readonly everyMs: number };

export class InvalidScheduleError extends TidewatchError {
  constructor(message: string) {
    super('TW_ERR_SCHEDULE', message, 400);
    this.name = 'InvalidScheduleError';
  }
}

/** Parses --schedule; `@every 5m` becomes an interval through the given duration parser. */
export function parseSchedule(text: string, parseDuration: (d: string) => number): ScheduleSpec {
  const trimmed = text.trim();
  const every = /^@every\s+(\S+)$/.exec(trimmed);
  if (every) {
    const everyMs = parseDuration(every[1] as string);
    if (everyMs <= 0) throw new InvalidScheduleError('@every needs a positive duration');
    return { everyMs };
  }
  try {
    Cron(trimmed, { paused: true }).stop();
  } catch (err) {
    throw new InvalidScheduleError(err instanceof Error ? err.message : String(err));
  }
  return { cron: trimmed };
}

export function startSchedule(spec: ScheduleSpec, run: () => Promise<void>): Schedule {
  if ('cron' in spec) {
    const job = Cron(spec.cron, { protect: true }, () => run());
    return { next: () => job.nextRun() ?? undefined, stop: () => job.stop() };
  }
  let timer: NodeJS.Timeout | undefined;
  let due = Date.now() + spec.everyMs;
  const tick = () => {
    due = Date.now() + spec.everyMs;
    timer = setTimeout(tick, spec.everyMs);
    void run();
  };
  timer = setTimeout(tick, spec.everyMs);
  return {
    next: () => new Date(due),
    stop: () => clearTimeout(timer),
  };
}
