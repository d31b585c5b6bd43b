// Applying an update the way `docker service update --image repo:tag@sha256:new --with-registry-auth` does:
// the service's own spec with only the task image changed, at the version read, with the pull credentials for
// the nodes; then Swarm replaces the tasks by the service's own update_config (parallelism, delay, failure
// action, order) and Tidewatch follows UpdateStatus until Swarm says how it ended (docs/swarm.md#updates).
// Tidewatch never sets a rollback policy: a failed update is rolled back only when the service asks for it.
import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage, type ApplyResult, type Target } from '../../core/index.js';
import { registryAuthHeader, type EngineApi, type RegistryAuth } from '../../contracts/index.js';
import type { ServiceSpec, SwarmService, SwarmTask, UpdateStatus } from './engine-types.js';
import { splitServiceImage } from './target.js';

export interface ServiceUpdate {
  readonly engine: EngineApi;
  readonly target: Target;
  /** The registry digest the staleness check found for the target's tag. */
  readonly latestDigest: string | undefined;
  /** The newer tag the check chose (docs/plugins.md#the-staleness-protocol); the service's own tag otherwise. */
  readonly latestTag?: string | undefined;
  readonly authFor: (imageRef: string) => Promise<RegistryAuth | undefined>;
  /** Aborts the wait (not Swarm's update): the run's signal, the process stopping, the update timeout. */
  readonly signal: AbortSignal;
  readonly pollIntervalMs: number;
}

/** The spec with only `TaskTemplate.ContainerSpec.Image` changed; everything else goes back as read. */
export function withImage(spec: ServiceSpec, image: string): ServiceSpec {
  const template = spec.TaskTemplate ?? {};
  return { ...spec, TaskTemplate: { ...template, ContainerSpec: { ...(template.ContainerSpec ?? {}), Image: image } } };
}

const TERMINAL = new Set(['completed', 'paused', 'rollback_completed', 'rollback_paused']);

/** How Swarm's update ended, as the run reports it. */
export function outcomeOf(
  target: Target,
  status: UpdateStatus,
  images: { oldImageId: string; newImageId: string; newImage?: string },
): ApplyResult {
  const message = status.Message ? `: ${status.Message}` : '';
  switch (status.State) {
    case 'completed':
      return { target, outcome: 'updated', ...images };
    // Each is the candidate's own failure (its tasks failed): no run tries it again (docs/state.md#failed-candidates).
    case 'rollback_completed':
      return { target, outcome: 'failed', rolledBack: true, candidateFailed: true, error: `Swarm rolled the update back${message}`, ...images };
    case 'rollback_paused':
      return { target, outcome: 'failed', rolledBack: false, candidateFailed: true, error: `Swarm paused the rollback of the update${message}`, ...images };
    default:
      return { target, outcome: 'failed', rolledBack: false, candidateFailed: true, error: `Swarm paused the update${message}`, ...images };
  }
}

/** Whether every task Swarm means to run runs `image` (vacuously true for a service scaled to zero). */
async function tasksRun(update: Pick<ServiceUpdate, 'engine' | 'signal'>, id: string, image: string): Promise<boolean> {
  const filters = JSON.stringify({ service: [id], 'desired-state': ['running'] });
  const tasks = await update.engine.request<SwarmTask[]>('GET', '/tasks', { query: { filters }, signal: update.signal });
  return tasks.every((task) => task.Status?.State === 'running' && task.Spec?.ContainerSpec?.Image === image);
}

/**
 * Reads the service until the status of this update is final. Swarm resets the status when it accepts an
 * update; a status that started when the one before did is that earlier update's, never this one's. A service
 * with no task to replace (scaled to zero, a global service without an eligible node) never gets a status: its
 * update is done once every task it means to run runs the new image.
 */
export async function follow(
  update: Pick<ServiceUpdate, 'engine' | 'signal' | 'pollIntervalMs'>,
  id: string,
  image: string,
  before: UpdateStatus | undefined,
): Promise<UpdateStatus> {
  for (;;) {
    await sleep(update.pollIntervalMs, undefined, { signal: update.signal });
    const service = await update.engine.request<SwarmService>('GET', `/services/${encodeURIComponent(id)}`, { signal: update.signal });
    const status = service.UpdateStatus;
    if (!status?.State) {
      if (await tasksRun(update, id, image)) return { State: 'completed' };
      continue;
    }
    if (!TERMINAL.has(status.State)) continue;
    if (before?.StartedAt !== undefined && status.StartedAt === before.StartedAt) continue;
    return status;
  }
}

export async function updateService(update: ServiceUpdate): Promise<ApplyResult> {
  const { engine, target, latestDigest } = update;
  // Never a tag alone: every node would resolve it on its own, and they may not agree (docs/swarm.md).
  if (!latestDigest) return { target, outcome: 'skipped', reason: 'no registry digest for the new image: a service is only updated to a pinned digest' };
  const path = `/services/${encodeURIComponent(target.id)}`;
  let service: SwarmService;
  try {
    service = await engine.request<SwarmService>('GET', path, { signal: update.signal });
  } catch (err) {
    return { target, outcome: 'failed', rolledBack: false, error: `cannot read the service: ${errorMessage(err)}` };
  }
  const current = splitServiceImage(service.Spec.TaskTemplate?.ContainerSpec?.Image ?? '');
  if (current.image !== target.image || current.tag === undefined) {
    return { target, outcome: 'skipped', reason: `the service's image changed since it was checked (now ${current.image})` };
  }
  // Pinned: the tag the check chose (else the service's own) at the digest it resolved (docs/plugins.md).
  const newImage = `${current.repository}:${update.latestTag ?? current.tag}@${latestDigest}`;
  const moved = update.latestTag !== undefined && update.latestTag !== current.tag;
  const images = { oldImageId: target.imageId, newImageId: latestDigest, ...(moved ? { newImage: `${current.repository}:${update.latestTag}` } : {}) };
  const auth = await update.authFor(newImage);
  try {
    await engine.request('POST', `${path}/update`, {
      query: { version: service.Version.Index },
      body: withImage(service.Spec, newImage),
      headers: auth ? { 'X-Registry-Auth': registryAuthHeader(auth) } : {},
      signal: update.signal,
    });
  } catch (err) {
    return { target, outcome: 'failed', rolledBack: false, error: `Swarm refused the update: ${errorMessage(err)}`, ...images };
  }
  try {
    return outcomeOf(target, await follow(update, target.id, newImage, service.UpdateStatus), images);
  } catch (err) {
    const why = update.signal.aborted ? 'the update was not finished when the wait ended' : errorMessage(err);
    return { target, outcome: 'failed', rolledBack: false, error: `${why}; Swarm carries on with it`, ...images };
  }
}
