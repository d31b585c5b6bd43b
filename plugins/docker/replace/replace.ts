// Replacing one container without ever losing it. The old container is kept until the new one is
// proven; ports stay free for the new one because the old is stopped (not removed) before the new starts:
//
//   pull → pre-update hook → create the new one under a staging name (the old still runs)
//   → copy the files the copy-file label names into it (replace/copy-file.ts)
//   → stop dependents (moved aside) → rename the old aside → stop it → give the new one the name
//   → start it → post-update hook → prove it → remove the old one
//
// Any failure after staging removes the new container, renames the old one back, starts it if it ran,
// and restores the dependents this replacement stopped: `{ outcome: 'failed', rolledBack: true }`.
// Tidewatch's own container is replaced the same way, except that it is neither stopped nor removed:
// the successor does that when it starts (replace/repair.ts).
import type Docker from 'dockerode';
import type { ContainerHandle, EngineClient } from '../engine/client.js';
import { errorMessage, formatGoDuration, type ApplyResult, type SnapshotRef, type Logger, type Target, type UpdatePlan } from '../../../core/index.js';
import { OCI_REVISION, sameCommit } from '../../../contracts/shared/revision.js';
import type { DataDirHandover } from '../../../contracts/index.js';
import { moveDependentAside, restoreAll, restoreAside } from './aside.js';
import { oldAsideName, parseOldAsideName, stagingName } from './aside-names.js';
import {
  inspectOrUndefined,
  isUp,
  removeContainer,
  renameContainer,
  startContainer,
  stopContainer,
} from './container-ops.js';
import { isConflict, isNotFound } from '../engine/errors.js';
import { EX_TEMPFAIL, runHook, type HookResult } from './lifecycle-hooks.js';
import { stopPolicy } from './stop-policy.js';
import { followOwners, joinedContainers } from './namespaces.js';
import { proveContainer, resultNote, type Proof } from './prove.js';
import { recreateOptions, splitNetworks, type ImageDefaults } from './recreate-config.js';
import { applyHostConfigCompat } from './cpu-copy.js';
import { carryFiles } from './copy-file.js';
import { pullTargetOf, type PullTarget } from '../image/pinned-pull.js';
import type { AsideContainer, RunState } from './run-state.js';
import type { DockerRuntime } from '../runtime.js';
import { deferRemoval, removeOld } from './removal.js';
import { isImageId, restoreReference } from './restore-reference.js';
import { REPLACES_LABEL, ZODIAC_IMAGE_LABEL, containerName, imageNameOf } from '../target.js';
import { dependentPreUpdate, loggedHook, postUpdate } from './update-hooks.js';
import { SnapshotSkip, planSnapshot, restoreOnRollback, settleSnapshot, snapshotStopped, type SnapshotStep } from './snapshot/step.js';

export interface ReplaceRequest {
  readonly plan: UpdatePlan;
  readonly state: RunState;
  /** Tidewatch's own container: replaced, but left running for the successor to remove. */
  readonly isOwn: boolean;
  readonly logger: Logger;
  /** Pulls an image (the run's shared pull, which may already be under way). */
  readonly pull: (image: PullTarget) => Promise<void>;
  /** Tidewatch is stopping: a replacement not yet swapped is abandoned, one not yet proven rolled back. */
  readonly signal: AbortSignal;
  /** With a data directory: its lock, handed to the own container's successor (docs/state.md#one-process-per-data-directory). */
  readonly handover?: DataDirHandover | undefined;
  /** The run's id: a rollback on demand's snapshot to restore is asked for by it (docs/snapshots.md). */
  readonly runId?: string;
}

/** The container being replaced, as found when its turn came. */
interface Subject {
  readonly info: Docker.ContainerInspectInfo;
  readonly aside: AsideContainer;
  /** True when an earlier replacement already moved it aside as a dependent. */
  readonly alreadyAside: boolean;
  readonly imageName: string;
}

/**
 * `ranAtStart`: the target was running when the run discovered it. It counts as running even if it is
 * down now: a stop requested by a process killed in the middle of a replacement completes in the engine
 * after the next start's repair, and such a container must come back up, not be recreated stopped.
 */
function subjectOf(info: Docker.ContainerInspectInfo, ranAtStart: boolean): Subject {
  const marker = parseOldAsideName(info.Name);
  const originalName = marker?.originalName ?? containerName(info.Name);
  return {
    info,
    aside: { id: info.Id, originalName, wasRunning: marker ? marker.wasRunning : isUp(info) || ranAtStart },
    alreadyAside: marker !== undefined,
    imageName: imageNameOf(info.Config.Image, info.Config.Labels ?? {}),
  };
}

export async function imageDefaults(docker: EngineClient, imageId: string): Promise<ImageDefaults | undefined> {
  try {
    return (await docker.getImage(imageId).inspect()).Config as ImageDefaults;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function localImageExists(docker: EngineClient, id: string): Promise<boolean> {
  return imageDefaults(docker, id).then((config) => config !== undefined);
}

/** Whether the plan needs a pull: not for a restart, nor when a no-pull source found the image locally. */
export async function needsPull(docker: EngineClient, plan: Pick<UpdatePlan, 'restartOnly' | 'staleness'>): Promise<boolean> {
  const { latestImageId } = plan.staleness;
  return !plan.restartOnly && !(latestImageId && (await localImageExists(docker, latestImageId)));
}

/**
 * The image the new container will run (id and labels), pulling first when the plan asks for a newer one;
 * `wanted.run` names it (a new tag, a digest pulled as docs/plugins.md#the-staleness-protocol says).
 */
/** The local image a rollback runs as it is (docs/state.md#rollback-on-demand); a dependent's restart has none. */
function rollbackImageId(plan: UpdatePlan): string | undefined {
  return plan.restartOnly ? undefined : plan.staleness.targetImageId;
}

async function newImage(
  rt: DockerRuntime,
  request: ReplaceRequest,
  wanted: PullTarget,
): Promise<{ id: string; labels: Record<string, string> }> {
  // A rollback runs a local image as it is, never pulled.
  const pinned = rollbackImageId(request.plan);
  if (!pinned && (await needsPull(rt.docker, request.plan))) await request.pull(wanted);
  const image = await rt.docker.getImage(pinned ?? wanted.run).inspect();
  return { id: image.Id, labels: image.Config.Labels ?? {} };
}

function hookFailure(result: HookResult): string {
  const why = result.timedOut ? 'timed out' : `exited with code ${result.exitCode}`;
  const output = result.output.trim() ? `: ${result.output.trim().slice(0, 500)}` : '';
  return `pre-update command failed (${why})${output}`;
}

/** Creates a container with `container`'s configuration on `image`; a leftover of the same name is removed first. */
export async function createLike(
  rt: DockerRuntime,
  container: Docker.ContainerInspectInfo,
  defaults: ImageDefaults | undefined,
  image: string,
  name: string,
  labels: Record<string, string> = {},
): Promise<string> {
  const profile = await rt.profile();
  const options = recreateOptions(container, defaults, { image, profile });
  if (options.HostConfig) {
    applyHostConfigCompat(options.HostConfig, {
      cpuCopyMode: rt.options.cpuCopyMode,
      disableMemorySwappiness: rt.options.disableMemorySwappiness,
      profile,
    });
  }
  // Created on a name, the container's name is that name: a zodiac label copied from the old container
  // would outrank it and name a version it no longer runs (docs/state.md#rollback-on-demand). What it
  // replaces is recorded for start-up repair, which tells its own replacement from anyone else's by it.
  const { [ZODIAC_IMAGE_LABEL]: _zodiac, ...kept } = options.Labels ?? {};
  options.Labels = { ...(isImageId(image) ? options.Labels : kept), [REPLACES_LABEL]: container.Id, ...labels };
  // A `container:` namespace is joined by id: the one of the container that holds the owner's name now.
  options.HostConfig = (await followOwners(rt.docker, options.HostConfig ?? {})).hostConfig;
  const { create, connectLater } = splitNetworks(options, profile);
  let created: ContainerHandle;
  try {
    created = await rt.docker.createContainer({ ...create, name });
  } catch (err) {
    if (!isConflict(err)) throw err;
    await removeContainer(rt.docker, name);
    created = await rt.docker.createContainer({ ...create, name });
  }
  try {
    for (const [network, endpoint] of connectLater) {
      await rt.docker.connectNetwork(network, { Container: created.id, EndpointConfig: endpoint });
    }
  } catch (err) {
    await removeContainer(rt.docker, created.id);
    throw err;
  }
  return created.id;
}

/**
 * The new container on `image`, under its staging name while the old one still runs; returns its id and
 * the reference it was created on. On a rollback's image id it runs that image under the reference it ran
 * it before (replace/restore-reference.ts), the id itself (with the zodiac label naming it) only when no name can.
 */
async function stageContainer(
  rt: DockerRuntime,
  subject: Subject,
  image: string,
  plan: UpdatePlan,
): Promise<{ id: string; reference: string }> {
  const defaults = await imageDefaults(rt.docker, subject.info.Image);
  const name = stagingName(subject.aside.originalName, subject.info.Id);
  const pinnedImageId = rollbackImageId(plan);
  if (!pinnedImageId) return { id: await createLike(rt, subject.info, defaults, image, name), reference: image };
  const wantedName = plan.staleness.targetImage ?? subject.imageName;
  const reference = await restoreReference(rt.docker, pinnedImageId, wantedName);
  const byId = reference === pinnedImageId;
  const id = await createLike(rt, subject.info, defaults, reference, name, byId ? { [ZODIAC_IMAGE_LABEL]: wantedName } : {});
  return { id, reference: byId ? wantedName : reference };
}

/**
 * The old container, when it is gone (an AutoRemove container removes itself when stopped): recreated
 * exactly as inspected on the image id it ran, with Watchtower's zodiac label keeping its image name.
 */
async function recreateOld(rt: DockerRuntime, subject: Subject): Promise<void> {
  const { info, aside } = subject;
  const labels = { [ZODIAC_IMAGE_LABEL]: subject.imageName };
  const id = await createLike(rt, info, undefined, info.Image, aside.originalName, labels);
  if (aside.wasRunning) await startContainer(rt.docker, id);
}

function shouldStart(rt: DockerRuntime, subject: Subject, isOwn: boolean): boolean {
  const wanted = subject.aside.wasRunning || rt.options.reviveStopped;
  return wanted && (!rt.options.noRestart || isOwn);
}

/** Undoes a swap: the new container goes, the old one and the stopped dependents come back. */
async function rollBack(
  rt: DockerRuntime,
  subject: Subject,
  newId: string,
  dependents: AsideContainer[],
  state: RunState,
  volumes?: () => Promise<unknown>,
): Promise<string[]> {
  const errors: string[] = [];
  try {
    await removeContainer(rt.docker, newId);
  } catch (err) {
    errors.push(`removing the new container: ${errorMessage(err)}`);
  }
  // The volumes as they were before the update, before the old container starts on them (docs/snapshots.md).
  try {
    await volumes?.();
  } catch (err) {
    errors.push(`restoring the volumes: ${errorMessage(err)}`);
  }
  try {
    if (await inspectOrUndefined(rt.docker, subject.info.Id)) await restoreAside(rt.docker, subject.aside);
    else await recreateOld(rt, subject);
  } catch (err) {
    errors.push(`restoring ${subject.aside.originalName}: ${errorMessage(err)}`);
  }
  errors.push(...(await restoreAll(rt.docker, dependents)));
  for (const dependent of dependents) state.asideDependents.delete(dependent.id);
  return errors;
}

export async function replaceContainer(rt: DockerRuntime, request: ReplaceRequest): Promise<ApplyResult> {
  const { plan, state, isOwn, logger } = request;
  const { target } = plan;
  const info = await inspectOrUndefined(rt.docker, target.id);
  if (!info) return { target, outcome: 'failed', error: 'container no longer exists', rolledBack: false };
  const subject = subjectOf(info, target.state === 'running');
  state.asideDependents.delete(info.Id);
  const policy = await stopPolicy(rt);

  // Until the swap starts, a failure only has to put back a dependent an earlier replacement stopped. Nothing
  // was replaced, so nothing was rolled back: such a failure says `rolledBack: false` (the audit's `failed`).
  const abandon = async (result: Omit<ApplyResult, 'target'>): Promise<ApplyResult> => {
    if (subject.alreadyAside) await restoreAside(rt.docker, subject.aside);
    return { target, ...result };
  };

  let imageId: string;
  let imageLabels: Record<string, string>;
  // A restart keeps the image name; an update runs what the staleness answer resolved (image/pinned-pull.ts).
  const wanted: PullTarget = plan.restartOnly ? { pull: subject.imageName, run: subject.imageName } : pullTargetOf(subject.imageName, plan.staleness);
  try {
    ({ id: imageId, labels: imageLabels } = await newImage(rt, request, wanted));
  } catch (err) {
    return abandon({ outcome: 'failed', error: errorMessage(err), rolledBack: false });
  }
  const required = plan.staleness.requiredRevision;
  if (!plan.restartOnly && required) {
    // A Git-watched container moves only onto the image built from the new head (docs/interface.md §9).
    if (!sameCommit(required, imageLabels[OCI_REVISION])) {
      return abandon({ outcome: 'skipped', reason: `image for ${required} not published yet` });
    }
  }
  if (!plan.restartOnly && imageId === info.Image) {
    return abandon({ outcome: 'skipped', reason: 'no newer image after pull' });
  }

  const snap = planSnapshot(rt, info, plan, { isOwn, runId: request.runId });
  if (snap && 'skip' in snap) {
    logger.warn({ container: target.name, reason: snap.skip }, 'update skipped: the snapshot it asks for cannot be taken');
    return abandon({ outcome: 'skipped', reason: snap.skip });
  }
  const snapshotStep: SnapshotStep | undefined = snap;
  let snapshot: SnapshotRef | undefined;

  if (rt.options.enableLifecycleHooks && info.State.Running && !info.State.Restarting && !isOwn) {
    let result: HookResult | undefined;
    try {
      result = await runHook(rt.docker, info, 'pre-update', { uid: rt.options.lifecycleUid, gid: rt.options.lifecycleGid });
    } catch (err) {
      return abandon({ outcome: 'failed', error: `pre-update command failed: ${errorMessage(err)}`, rolledBack: false });
    }
    if (result?.exitCode === EX_TEMPFAIL) {
      return abandon({ outcome: 'skipped', reason: `pre-update command exit code ${EX_TEMPFAIL} (EX_TEMPFAIL)` });
    }
    if (result && (result.timedOut || result.exitCode !== 0)) {
      return abandon({ outcome: 'failed', error: hookFailure(result), rolledBack: false });
    }
  }

  // A rollback on demand: pre-rollback in the container being rolled back from (docs/snapshots.md#hooks).
  if (rollbackImageId(plan) && !isOwn) await loggedHook(rt, info.Id, 'pre-rollback', logger);
  if (request.signal.aborted) return abandon({ outcome: 'skipped', reason: 'cancelled: Tidewatch is stopping' });
  let newId: string;
  let runName: string;
  try {
    ({ id: newId, reference: runName } = await stageContainer(rt, subject, wanted.run, plan));
  } catch (err) {
    return abandon({ outcome: 'failed', error: `creating the new container: ${errorMessage(err)}`, rolledBack: false });
  }
  let copyFileNotes: string[]; // files left out for where they would land (a link, a mount): the audit says so
  try {
    copyFileNotes = await carryFiles(rt.docker, info, newId, target.name, logger);
  } catch (err) {
    await removeContainer(rt.docker, newId).catch((cause: unknown) => logger.warn({ container: target.name, err: errorMessage(cause) }, 'could not remove the new container'));
    return abandon({ outcome: 'failed', error: errorMessage(err), rolledBack: false });
  }

  const stoppedDependents: AsideContainer[] = [];
  const dependentIds = new Set(plan.dependents.map((d) => d.id));
  const started = shouldStart(rt, subject, isOwn);
  // Set once the new container is asked to start: a failure from then on is the candidate image's own.
  let candidateRunning = false;
  let proof: Proof | undefined;
  try {
    const moveAside = async (dependent: Pick<Target, 'id'>) => {
      const aside = await moveDependentAside(rt.docker, dependent, policy);
      if (!aside) return;
      stoppedDependents.push(aside);
      state.asideDependents.set(aside.id, aside);
    };
    if (!rt.options.rollingRestart) {
      for (const dependent of plan.dependents) {
        if (dependent.runtime !== target.runtime || dependent.id === rt.ownId()) continue;
        await dependentPreUpdate(rt, dependent.id, logger);
        await moveAside(dependent);
      }
    }
    // Containers in this one's namespaces that the run did not discover as dependents (it was targeted at
    // this one) go aside too; the run's cleanup recreates them joined to the successor (replace/namespace-follow.ts).
    if (!isOwn) for (const id of await joinedContainers(rt.docker, rt.namespaceModes, info, dependentIds)) await moveAside({ id });
    if (!subject.alreadyAside) {
      await renameContainer(rt.docker, info.Id, oldAsideName(subject.aside.originalName, info.Id, subject.aside.wasRunning));
    }
    if (!isOwn) await stopContainer(rt.docker, info, policy);
    if (snapshotStep) snapshot = await snapshotStopped(rt, snapshotStep, info, { container: target.name, ...(target.host ? { host: target.host } : {}), runId: request.runId ?? '' }, logger);
    await renameContainer(rt.docker, newId, subject.aside.originalName);
    if (started) {
      candidateRunning = true;
      // The successor shares the data directory and takes its lock at start: this process lets go first.
      if (isOwn) await request.handover?.handOver();
      await startContainer(rt.docker, newId);
      await postUpdate(rt, newId, logger);
      if (rollbackImageId(plan)) await loggedHook(rt, newId, 'post-rollback', logger);
      proof = await proveContainer(rt.docker, newId, {
        gracePeriodMs: rt.options.gracePeriodMs,
        healthTimeoutMs: rt.options.healthTimeoutMs,
        signal: request.signal,
      });
      logger.info({ container: target.name, waited_ms: proof.waitedMs, why: proof.why }, 'new container proven');
    }
  } catch (err) {
    if (isOwn && started && (await isSuccessorInCharge(rt, newId, request.signal))) {
      // Self-update (docs/image.md): the successor is running and is stopping this process, which is
      // its proof; rolling back now would remove the one Tidewatch that is about to be left.
      logger.info({ container: target.name }, 'self-update: the successor is running and took over');
      return {
        target,
        outcome: 'updated',
        oldImageId: info.Image,
        newImageId: imageId,
        newContainerId: newId,
        ...(runName !== subject.imageName ? { newImage: runName } : {}),
      };
    }
    if (candidateRunning) await loggedHook(rt, newId, 'pre-rollback', logger);
    const taken = snapshot;
    const volumes = async () => {
      snapshot = (await restoreOnRollback(rt, snapshotStep, taken, info.Id, logger)) ?? snapshot;
    };
    const problems = await rollBack(rt, subject, newId, stoppedDependents, state, volumes);
    await settleSnapshot(problems.length === 0 ? snapshotStep : undefined, info.Id, logger);
    if (candidateRunning) await loggedHook(rt, info.Id, 'post-rollback', logger);
    if (err instanceof SnapshotSkip && problems.length === 0) {
      logger.warn({ container: target.name, reason: err.message }, 'update skipped, old container restarted: the snapshot it asks for cannot be taken');
      return { target, outcome: 'skipped', reason: err.message };
    }
    // The successor is gone again: the data directory is this process's once more.
    if (isOwn && candidateRunning) await request.handover?.takeBack().catch((e: unknown) => logger.error({ err: errorMessage(e) }, 'could not take the data directory lock back'));
    const error = errorMessage(err);
    const candidate = { ...(candidateRunning ? { candidateFailed: true } : {}), ...(snapshot ? { snapshot } : {}) };
    if (problems.length > 0) {
      logger.error({ container: target.name, err: error, rollback: problems }, 'rollback incomplete');
      return { target, outcome: 'failed', error: `${error}; rollback incomplete: ${problems.join('; ')}`, rolledBack: false, ...candidate };
    }
    logger.warn({ container: target.name, err: error }, 'replacement failed, old container restored');
    return { target, outcome: 'failed', error, rolledBack: true, ...candidate };
  }

  await settleSnapshot(snapshotStep, info.Id, logger);
  if (!isOwn) {
    // Dependents recreated later in the run may join this container's namespaces: until they have, the old
    // one stays (marked replaced) so that its name still leads them to its successor (replace/namespaces.ts).
    if (plan.dependents.length > 0 || stoppedDependents.length > 0) await deferRemoval(rt, state, info.Id, logger, target.name);
    else await removeOld(rt, info.Id, logger, target.name);
    if (!plan.restartOnly) state.replacedImages.push({ imageId: info.Image, imageName: subject.imageName });
  }
  return {
    target,
    outcome: plan.restartOnly ? 'restarted' : 'updated',
    oldImageId: info.Image,
    newImageId: imageId,
    newContainerId: newId,
    ...(runName !== subject.imageName ? { newImage: runName } : {}),
    ...resultNote(proof, copyFileNotes),
    ...(snapshot ? { snapshot } : {}),
  };
}

/** Stopped while proving its own successor, and the successor runs: the successor is in charge. */
async function isSuccessorInCharge(rt: DockerRuntime, newId: string, signal: AbortSignal): Promise<boolean> {
  if (!signal.aborted) return false;
  const successor = await inspectOrUndefined(rt.docker, newId);
  return successor?.State.Running === true && !successor.State.Restarting;
}
