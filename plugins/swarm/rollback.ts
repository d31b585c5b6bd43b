// Rollback on demand for a Swarm service (docs/swarm.md#rollback-on-demand): what `docker service rollback`
// does, `POST /services/{id}/update?rollback=previous` with the service's own spec at the version read, so
// Swarm puts the service back on its previous spec with the service's own rollback_config. Only when that
// previous spec runs the image Tidewatch recorded before its update: a spec someone changed since is refused
// with the reason, never rolled back to something else.
import { errorMessage, type ApplyResult, type Target } from '../../core/index.js';
import type { EngineApi } from '../../contracts/index.js';
import type { SwarmService } from './engine-types.js';
import { splitServiceImage } from './target.js';
import { follow } from './update.js';

export interface ServiceRollback {
  readonly engine: EngineApi;
  readonly target: Target;
  /** The digest the service ran before Tidewatch's update (the state store's previous image). */
  readonly previousDigest: string;
  readonly signal: AbortSignal;
  readonly pollIntervalMs: number;
}

export async function rollbackService(rollback: ServiceRollback): Promise<ApplyResult> {
  const { engine, target, previousDigest, signal } = rollback;
  const path = `/services/${encodeURIComponent(target.id)}`;
  let service: SwarmService;
  try {
    service = await engine.request<SwarmService>('GET', path, { signal });
  } catch (err) {
    return { target, outcome: 'failed', rolledBack: false, error: `cannot read the service: ${errorMessage(err)}` };
  }
  const previousImage = service.PreviousSpec?.TaskTemplate?.ContainerSpec?.Image ?? '';
  if (splitServiceImage(previousImage).digest !== previousDigest) {
    const has = previousImage ? `its previous spec runs ${previousImage}` : 'it has no previous spec';
    return { target, outcome: 'skipped', reason: `Swarm cannot roll the service back to ${previousDigest}: ${has}` };
  }
  const images = { oldImageId: target.imageId, newImageId: previousDigest };
  try {
    await engine.request('POST', `${path}/update`, { query: { version: service.Version.Index, rollback: 'previous' }, body: service.Spec, signal });
  } catch (err) {
    return { target, outcome: 'failed', rolledBack: false, error: `Swarm refused the rollback: ${errorMessage(err)}`, ...images };
  }
  let status;
  try {
    status = await follow(rollback, target.id, previousImage, service.UpdateStatus);
  } catch (err) {
    const why = signal.aborted ? 'the rollback was not finished when the wait ended' : errorMessage(err);
    return { target, outcome: 'failed', rolledBack: false, error: `${why}; Swarm carries on with it`, ...images };
  }
  if (status.State === 'rollback_completed' || status.State === 'completed') return { target, outcome: 'updated', ...images };
  const message = status.Message ? `: ${status.Message}` : '';
  return { target, outcome: 'failed', rolledBack: false, error: `Swarm's rollback ended ${status.State ?? 'unknown'}${message}`, ...images };
}
