// Pulling through the Engine with the registry's credentials. The Engine reports a failed pull inside
// the progress stream, not as an HTTP status, so the whole stream is read. Credentials the registry
// refuses are retried anonymously once (a public image behind a stale password), as Watchtower does.
import { TidewatchError } from '../../../core/index.js';
import { engineMessage } from '../engine/errors.js';
import type { EngineClient } from '../engine/client.js';
import type { RunContext } from '../../../core/index.js';
import type { AuthFor, RegistryAuth } from '../options.js';
import { settlePinned, type PullTarget } from './pinned-pull.js';

async function pullOnce(docker: EngineClient, image: string, auth: RegistryAuth | undefined): Promise<void> {
  try {
    await docker.pull(image, auth);
  } catch (err) {
    throw new TidewatchError('TW_ERR_DOCKER_PULL', `pull ${image}: ${engineMessage(err)}`, 502);
  }
}

function isUnauthorized(err: unknown): boolean {
  return /unauthori[sz]ed|authentication required|denied/i.test(String(err instanceof Error ? err.message : err));
}

export async function pullImage(docker: EngineClient, image: string, authFor: AuthFor | undefined): Promise<void> {
  const auth = authFor ? await authFor(image) : undefined;
  try {
    await pullOnce(docker, image, auth);
  } catch (err) {
    if (!auth || !isUnauthorized(err)) throw err;
    await pullOnce(docker, image, undefined);
  }
}

/** Pulls in flight at once for one engine: enough to overlap transfers, few enough for registry limits. */
export const PULL_CONCURRENCY = 4;

/** A tiny semaphore: pulls started ahead of their replacement queue here. */
export class PullSlots {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(slots = PULL_CONCURRENCY) {
    this.#free = slots;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

/**
 * The run's one pull of an image on an engine (each engine pulls its own, docs/hosts.md): started early for
 * every stale target that passed all gates (so transfers overlap while containers are replaced one by
 * one), awaited by the replacement. A pinned pull (image/pinned-pull.ts) is checked and tagged in the same step,
 * so every target sharing it finds the image named as it will run it.
 */
export function pullForRun(
  docker: EngineClient,
  target: PullTarget,
  authFor: AuthFor | undefined,
  ctx: RunContext,
  slots: PullSlots,
): Promise<void> {
  const key = `docker-pull:${docker.host}:${target.pull}${target.pinned ? `=>${target.run}` : ''}`;
  return ctx.memo(key, () =>
    slots.run(async () => {
      await pullImage(docker, target.pull, authFor);
      await settlePinned(docker, target);
    }),
  );
}
