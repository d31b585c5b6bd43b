// Ephemeral self-update, the Watchtower fork's mode (docs/image.md#ephemeral-self-update): instead of a
// successor started beside it (which cannot bind the ports this instance still holds), Tidewatch pulls its
// new image and starts a short-lived helper container from it. The helper runs the same binary with
// --self-update-orchestrator (self/orchestrator.ts): it stops this container, creates and starts the replacement
// with the same configuration, published ports included, proves it, and removes the old one, or restores
// it. The helper removes itself when done (AutoRemove).
import type Docker from 'dockerode';
import { bareDigest, errorMessage, type ApplyResult, type Logger, type UpdatePlan } from '../../../core/index.js';
import { SELF_LABELS } from './labels.js';
import type { DataDirHandover, FailedCandidate, StateStore } from '../../../contracts/index.js';
import { inspectOrUndefined, removeContainer } from '../replace/container-ops.js';
import { pullTargetOf, type PullTarget } from '../image/pinned-pull.js';
import type { DockerRuntime } from '../runtime.js';
import { containerName, imageNameOf } from '../target.js';

/** The fork's label of its helper, and Tidewatch's own name for it (docs/interface.md §8). */
export const ORCHESTRATOR_LABELS = {
  'com.centurylinklabs.watchtower.ephemeral-orchestrator': 'true',
  'tidewatch.ephemeral-orchestrator': 'true',
} as const;

/** What the helper reads from its environment (the fork passes the same facts as WT_ORCHESTRATOR_*). */
export const ORCHESTRATOR_ENV = {
  oldId: 'TIDEWATCH_ORCHESTRATOR_OLD_ID',
  newImageId: 'TIDEWATCH_ORCHESTRATOR_NEW_IMAGE_ID',
  newImage: 'TIDEWATCH_ORCHESTRATOR_NEW_IMAGE',
} as const;

const ORCHESTRATOR_VARIABLES = new Set<string>(Object.values(ORCHESTRATOR_ENV));

/** The helper's container name: one per old container, so a second hand-off cannot start a second helper. */
export function orchestratorName(oldId: string): string {
  return `tidewatch-orchestrator-${oldId.slice(0, 12)}`;
}

/**
 * The helper reaches the engine as this container does: its environment (DOCKER_HOST, TLS, the options),
 * its socket mounts, its network, its user and groups. Nothing else: no ports, no data volume.
 */
export function orchestratorCreateOptions(old: Docker.ContainerInspectInfo, image: string, newImageId: string): Docker.ContainerCreateOptions {
  const env = (old.Config.Env ?? []).filter((entry) => !ORCHESTRATOR_VARIABLES.has(entry.split('=')[0] ?? ''));
  const socketBinds = (old.HostConfig.Binds ?? []).filter((bind) => /\.sock(:|$)/.test(bind.split(':')[1] ?? ''));
  return {
    name: orchestratorName(old.Id),
    Image: image,
    Cmd: ['--self-update-orchestrator'],
    Env: [
      ...env,
      `${ORCHESTRATOR_ENV.oldId}=${old.Id}`,
      `${ORCHESTRATOR_ENV.newImageId}=${newImageId}`,
      `${ORCHESTRATOR_ENV.newImage}=${image}`,
    ],
    // The image marks Tidewatch's own container; the helper is not another Tidewatch instance (nor is the
    // fork's helper a Watchtower one), so that label is overridden.
    Labels: { ...Object.fromEntries(SELF_LABELS.map((key) => [key, 'false'])), ...ORCHESTRATOR_LABELS },
    ...(old.Config.User ? { User: old.Config.User } : {}),
    // The helper's own health does not matter: it lives for one replacement.
    Healthcheck: { Test: ['NONE'] },
    HostConfig: {
      AutoRemove: true,
      Binds: socketBinds,
      NetworkMode: old.HostConfig.NetworkMode ?? 'default',
      ...(old.HostConfig.GroupAdd ? { GroupAdd: old.HostConfig.GroupAdd } : {}),
    },
  };
}

/** The part of the state store a hand-off writes to: the failed candidate of this container. */
export type FailedCandidateMemory = Pick<StateStore, 'setFailedCandidate'>;

export interface HandOffRequest {
  readonly plan: UpdatePlan;
  readonly logger: Logger;
  readonly pull: (image: PullTarget) => Promise<void>;
  /** The data directory's lock, handed to the successor as in a self-update beside (docs/state.md). */
  readonly handover?: DataDirHandover | undefined;
  /** The state store, when the state plugin runs: where a release the helper could not run is remembered. */
  readonly store?: FailedCandidateMemory | undefined;
}

/**
 * Written before the hand-off, as if the release had failed (docs/image.md#ephemeral-self-update): this
 * process cannot learn the helper's verdict, since the helper stops it first. When the release runs, its
 * container has another id and this entry is left to the old one, which is gone. When the helper puts this
 * container back, the entry stands, and no run hands the same release off again until a newer one appears
 * or a person asks for it (docs/state.md#failed-candidates), instead of a stop and restore at every run.
 */
export function presumedFailedRelease(plan: UpdatePlan, imageId: string, now = new Date()): FailedCandidate {
  const { staleness, target } = plan;
  return {
    image: target.image,
    digest: staleness.latestDigest ? bareDigest(staleness.latestDigest) : '',
    imageId: staleness.latestImageId ?? imageId,
    reason: 'the ephemeral self-update helper put this container back: the release did not run (the helper\'s log says why)',
    since: now.toISOString(),
  };
}

/**
 * Pulls the new image and starts the helper. `updated` means handed off: the helper stops this process
 * next, and its log (and the new instance's) says how the replacement ended.
 */
export async function handOffToOrchestrator(rt: DockerRuntime, { plan, logger, pull, handover, store }: HandOffRequest): Promise<ApplyResult> {
  const { target } = plan;
  const old = await inspectOrUndefined(rt.docker, target.id);
  if (!old) return { target, outcome: 'failed', error: 'container no longer exists', rolledBack: false };
  const wanted = pullTargetOf(imageNameOf(old.Config.Image, old.Config.Labels ?? {}), plan.staleness);
  let imageId: string;
  try {
    await pull(wanted);
    imageId = (await rt.docker.getImage(wanted.run).inspect()).Id;
  } catch (err) {
    return { target, outcome: 'failed', error: errorMessage(err), rolledBack: true };
  }
  if (imageId === old.Image) return { target, outcome: 'skipped', reason: 'no newer image after pull' };
  const options = orchestratorCreateOptions(old, wanted.run, imageId);
  let helperId: string | undefined;
  try {
    // A helper left by an earlier attempt that never started is replaced; a running one is doing the job.
    const leftover = await inspectOrUndefined(rt.docker, options.name as string);
    if (leftover?.State.Running) return { target, outcome: 'skipped', reason: 'an ephemeral self-update helper is already running' };
    if (leftover) await removeContainer(rt.docker, leftover.Id);
    helperId = (await rt.docker.createContainer(options)).id;
    // Before the hand-over flushes the store: nothing is written to the data directory after it.
    store?.setFailedCandidate(target.id, presumedFailedRelease(plan, imageId));
    // The successor the helper starts shares the data directory: the lock is released before, as a
    // self-update beside does, so a predecessor stopped the hard way cannot keep its successor out.
    await handover?.handOver();
    await rt.docker.getContainer(helperId).start();
  } catch (err) {
    if (helperId) await removeContainer(rt.docker, helperId).catch(() => undefined);
    // The helper never ran: the release was not tried, and may be at the next run.
    store?.setFailedCandidate(target.id, undefined);
    await handover?.takeBack().catch((e: unknown) => logger.error({ err: errorMessage(e) }, 'could not take the data directory lock back'));
    return { target, outcome: 'failed', error: `starting the ephemeral self-update helper: ${errorMessage(err)}`, rolledBack: true };
  }
  logger.info(
    { container: containerName(old.Name), helper: options.name, image: wanted.run },
    'self-update: handed to the ephemeral helper, which replaces this container',
  );
  return { target, outcome: 'updated', oldImageId: old.Image, newImageId: imageId };
}
