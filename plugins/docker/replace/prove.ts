// Proving a new container before its predecessor is removed (docs/replacement.md#proof). It must keep
// running for the grace period; when it has a health check it must also turn `healthy`, and for that the
// proof waits as long as the check's own timing needs (replace/health-timing.ts), up to --update-health-timeout.
// An exit, a restart (a restart policy hides a crash loop behind `running`) or `unhealthy` fails at once,
// so a broken image is rolled back without waiting. A check that has not run a single probe by the end of
// the wait (its interval is longer than the bound, or the engine runs no checks: docs/podman.md) cannot
// speak against the container, which has kept running all along: it is proven, and the answer says so.
// With a grace period of 0, running once is enough. When Tidewatch is asked to stop meanwhile, the proof
// ends unproven: the replacement is rolled back, which is quick and puts back what ran before
// (docs/stopping.md).
import { TidewatchError, formatGoDuration } from '../../../core/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import type { EngineClient } from '../engine/client.js';
import { describeTiming, healthTiming, type HealthTiming } from './health-timing.js';

export interface ProveOptions {
  readonly gracePeriodMs: number;
  /** --update-health-timeout: the longest a health check is waited for, whatever its timing. */
  readonly healthTimeoutMs: number;
  /** How often the container is inspected (default 100 ms; at least 250 ms once the grace period is over). */
  readonly pollMs?: number;
  /** The run's signal: aborted, the proof fails at once. */
  readonly signal?: AbortSignal;
}

/** How a proof ended: how long it waited, and a sentence saying why that long. */
export interface Proof {
  readonly waitedMs: number;
  readonly why: string;
  /** True when the health check made the proof wait past the grace period. */
  readonly extended: boolean;
}

export class NotProvenError extends TidewatchError {
  constructor(message: string) {
    super('TW_ERR_DOCKER_NOT_PROVEN', message, 500);
    this.name = 'NotProvenError';
  }
}

function describeExit(state: Docker.ContainerInspectInfo['State']): string {
  const detail = state.Error ? `: ${state.Error}` : '';
  return `new container exited with code ${state.ExitCode}${detail}`;
}

/** How long the health check may take: its verdict time, bounded, and never less than the grace period. */
function healthWaitMs(timing: HealthTiming | undefined, options: ProveOptions): number {
  if (!timing) return options.gracePeriodMs;
  return Math.max(options.gracePeriodMs, Math.min(timing.verdictMs, options.healthTimeoutMs));
}

function timingClause(timing: HealthTiming, options: ProveOptions): string {
  const bounded = timing.verdictMs > options.healthTimeoutMs ? `, bounded by --update-health-timeout ${formatGoDuration(options.healthTimeoutMs)}` : '';
  return `its health check (${describeTiming(timing)}) decides within ${formatGoDuration(timing.verdictMs)}${bounded}`;
}

type HealthState = NonNullable<Docker.ContainerInspectInfo['State']['Health']> & { Log?: unknown[] | null };

export async function proveContainer(docker: EngineClient, id: string, options: ProveOptions): Promise<Proof> {
  const handle = docker.getContainer(id);
  const started = Date.now();
  const grace = options.gracePeriodMs;
  let restarts: number | undefined;
  let timing: HealthTiming | undefined;
  let waitMs: number | undefined;
  for (;;) {
    if (options.signal?.aborted) throw new NotProvenError('update cancelled before the new container was proven: Tidewatch is stopping');
    const info = await handle.inspect();
    const { State: state } = info;
    if (restarts === undefined) {
      restarts = info.RestartCount;
      timing = healthTiming(info.Config.Healthcheck);
      waitMs = healthWaitMs(timing, options);
    }
    const waited = Date.now() - started;
    if (state.Restarting || info.RestartCount > restarts) throw new NotProvenError('new container is restarting (it exited)');
    if (!state.Running) throw new NotProvenError(describeExit(state));
    // Podman shows Health.Status "" for a container without a health check (docs/podman.md); Docker
    // leaves Health out then.
    const healthState = state.Health as HealthState | undefined;
    const health = healthState?.Status || undefined;
    const checked = timing !== undefined && health !== undefined && health !== 'none';
    if (health === 'unhealthy') throw new NotProvenError(`new container turned unhealthy after ${formatGoDuration(waited)}`);
    if (grace === 0) return { waitedMs: waited, why: 'running once is enough with a grace period of 0', extended: false };
    if (waited >= grace) {
      if (!checked || !timing) return { waitedMs: waited, why: `kept running for the ${formatGoDuration(grace)} grace period`, extended: false };
      if (health === 'healthy') {
        const why = `kept running for the ${formatGoDuration(grace)} grace period and turned healthy: ${timingClause(timing, options)}`;
        return { waitedMs: waited, why, extended: waited > grace + 1000 };
      }
      if (waited >= (waitMs as number)) {
        const ran = (healthState?.Log?.length ?? 0) > 0;
        if (!ran) {
          const why = `kept running for ${formatGoDuration(waited)} and its health check never ran in that time (${describeTiming(timing)})`;
          return { waitedMs: waited, why, extended: true };
        }
        throw new NotProvenError(
          `new container not healthy after ${formatGoDuration(waited)} (health: ${health}); ${timingClause(timing, options)}`,
        );
      }
    }
    const until = (waited < grace ? grace : (waitMs as number)) - waited;
    const poll = waited < grace ? (options.pollMs ?? 100) : Math.max(options.pollMs ?? 100, 250);
    await sleep(Math.max(1, Math.min(poll, until)), undefined, options.signal ? { signal: options.signal } : {}).catch(() => undefined);
  }
}
