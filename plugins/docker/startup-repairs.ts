// Start-up with many engines (docs/hosts.md#start-up, docs/performance.md#start-up): each engine's repair of
// an interrupted replacement is asked for at start, at most `concurrency` engines at once, and start-up waits
// for any one engine at most `waitMs`. A slow or unreachable engine keeps its slot that long only: the others
// go on, its repair goes on in the background, and the first discovery on it waits for that repair (a
// discovery always repairs first, engines.ts), so nothing is ever listed before it is repaired.
import { errorMessage } from '../../core/index.js';
import type { Engine } from './engine/engines.js';

export const STARTUP_CONCURRENCY = 8;
export const STARTUP_WAIT_MS = 2000;

export interface StartupRepairOptions {
  readonly concurrency?: number;
  readonly waitMs?: number;
}

/** Resolves when every engine was repaired, failed, or was waited for `waitMs`; never rejects. */
export async function repairAtStart(engines: readonly Engine[], options: StartupRepairOptions = {}): Promise<void> {
  const concurrency = Math.max(1, options.concurrency ?? STARTUP_CONCURRENCY);
  const waitMs = options.waitMs ?? STARTUP_WAIT_MS;
  let next = 0;
  const worker = async () => {
    while (next < engines.length) {
      const engine = engines[next++] as Engine;
      await repairWithin(engine, waitMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, engines.length) }, worker));
}

async function repairWithin(engine: Engine, waitMs: number): Promise<void> {
  const { logger } = engine.runtime;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), waitMs);
  });
  const repaired = engine.repair().then(
    () => 'done' as const,
    (err: unknown) => {
      logger.warn({ err: errorMessage(err) }, 'engine not reachable at start; repair deferred to the first run');
      return 'failed' as const;
    },
  );
  const outcome = await Promise.race([repaired, late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    logger.warn({ waited_ms: waitMs }, 'engine slow to answer at start; its repair goes on, and its first discovery waits for it');
  }
}

/**
 * How long a stop waits for repairs still under way: long enough for a loaded engine to finish putting a
 * container back, short enough that an engine that never answers (the client has no request timeout) does not
 * outlast `docker stop`'s 10 s grace.
 */
export const STOP_REPAIR_WAIT_MS = 8000;

/** Waits for every repair under way, at most `waitMs`; never rejects. */
export async function waitForRepairs(engines: readonly Engine[], logger: Engine['runtime']['logger'], waitMs = STOP_REPAIR_WAIT_MS): Promise<void> {
  const inFlight = engines.map((engine) => engine.repairInFlight()).filter((p): p is Promise<void> => p !== undefined);
  if (inFlight.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), waitMs);
  });
  const outcome = await Promise.race([Promise.all(inFlight).then(() => 'done' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') logger.warn({ waited_ms: waitMs }, 'stopping while a repair is still under way on an engine that does not answer');
}
