// The end of a soak (docs/rollouts.md#soak): every replacement of the stage must still be the container the
// update started, running, not restarted since, and healthy when it has a health check. Asked of the engine the
// replacement runs on, through the Docker runtime's engines (DOCKER_ENGINES): one inspect per replacement.
import { errorMessage } from '../../core/index.js';
import type { DockerEngines } from '../../contracts/index.js';
import type { RolloutMember, RolloutStage } from './machine.js';

export type Verdict =
  | { readonly kind: 'ok' }
  /** A replacement did not stay up: the rollout halts on it. */
  | { readonly kind: 'failed'; readonly member: RolloutMember; readonly why: string }
  /** An engine did not answer: nothing is decided, the next stage waits. */
  | { readonly kind: 'unknown'; readonly why: string };

interface Inspected {
  readonly State?: { readonly Running?: boolean; readonly Restarting?: boolean; readonly Health?: { readonly Status?: string } };
  readonly RestartCount?: number;
}

/** Why a replacement did not stay up, or undefined when it did. */
export function notUp(info: Inspected): string | undefined {
  if (!info.State?.Running || info.State.Restarting) return 'not running';
  if ((info.RestartCount ?? 0) > 0) return `restarted ${info.RestartCount} times`;
  const health = info.State.Health?.Status;
  if (health !== undefined && health !== 'healthy' && health !== 'none') return `health ${health}`;
  return undefined;
}

export async function verifyStage(stage: RolloutStage, engines: DockerEngines | undefined, signal?: AbortSignal): Promise<Verdict> {
  for (const member of stage.members) {
    if (member.state !== 'updated') continue;
    const engine = engines?.list().find((e) => e.host === member.host);
    if (!engine || !member.new_id) {
      // No engine to ask (another runtime's target): the proof the runtime gave is all there is.
      continue;
    }
    let info: Inspected;
    try {
      info = await engine.request<Inspected>('GET', `/containers/${encodeURIComponent(member.new_id)}/json`, { ...(signal ? { signal } : {}) });
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404) return { kind: 'failed', member, why: `${member.container} on ${member.host} is gone` };
      return { kind: 'unknown', why: `${member.host} did not answer: ${errorMessage(err).slice(0, 200)}` };
    }
    const why = notUp(info);
    if (why) return { kind: 'failed', member, why: `${member.container} on ${member.host} ${why} during the soak` };
  }
  return { kind: 'ok' };
}
