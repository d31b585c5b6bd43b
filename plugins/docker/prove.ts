// Proving a new container before its predecessor is removed: it must keep running for the grace period,
// and when its image has a health check it must turn `healthy` within it (as soon as it does, it is
// proven); with a grace period of 0, running once is enough. An exit, a restart (a restart policy hides a crash loop behind `running`) or `unhealthy` fails
// at once, so a broken image is rolled back without waiting out the grace period. When Tidewatch is asked
// to stop meanwhile, the proof ends unproven: the replacement is rolled back, which is quick and puts back
// what ran before (docs/stopping.md).
import { TidewatchError } from '../../core/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import type { EngineClient } from './engine-client.js';

export interface ProveOptions {
  readonly gracePeriodMs: number;
  /** How often the container is inspected (default 100 ms). */
  readonly pollMs?: number;
  /** The run's signal: aborted, the proof fails at once. */
  readonly signal?: AbortSignal;
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

export async function proveContainer(docker: EngineClient, id: string, options: ProveOptions): Promise<void> {
  const handle = docker.getContainer(id);
  const deadline = Date.now() + options.gracePeriodMs;
  const pollMs = options.pollMs ?? 100;
  let restarts: number | undefined;
  for (;;) {
    if (options.signal?.aborted) throw new NotProvenError('update cancelled before the new container was proven: Tidewatch is stopping');
    const info = await handle.inspect();
    const { State: state } = info;
    restarts ??= info.RestartCount;
    if (state.Restarting || info.RestartCount > restarts) throw new NotProvenError('new container is restarting (it exited)');
    if (!state.Running) throw new NotProvenError(describeExit(state));
    // Podman shows Health.Status "" for a container without a health check (docs/podman.md); Docker
    // leaves Health out then.
    const health = state.Health?.Status || undefined;
    if (health === 'unhealthy') throw new NotProvenError('new container turned unhealthy');
    if (health === 'healthy') return;
    const left = deadline - Date.now();
    if (left <= 0) {
      // A grace period of 0 asks for no wait: running is enough, whatever the health check says yet.
      if (options.gracePeriodMs > 0 && health !== undefined && health !== 'none') {
        throw new NotProvenError(`new container not healthy within ${options.gracePeriodMs} ms (health: ${health})`);
      }
      return;
    }
    await sleep(Math.min(pollMs, left), undefined, options.signal ? { signal: options.signal } : {}).catch(() => undefined);
  }
}
