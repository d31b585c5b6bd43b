// The ephemeral self-update helper (--self-update-orchestrator, docs/image.md#ephemeral-self-update): a
// short-lived container on the new image, started by the Tidewatch it replaces. It replaces that container
// the way every container is replaced (replace.ts): the new one is staged under a temporary name, the old
// one is moved aside and stopped (freeing its ports), the new one takes the name, starts and is proven,
// and the old one is removed; any failure puts the old one back, running. Exit 0: replaced; 1: not.
import type Docker from 'dockerode';
import { errorMessage, type Logger, type Target, type UpdatePlan } from '../../../core/index.js';
import { inspectOrUndefined } from '../replace/container-ops.js';
import { ORCHESTRATOR_ENV } from './ephemeral.js';
import { createEngine } from '../engine/engines.js';
import { engineSpecs } from '../engine/hosts.js';
import type { DockerOptionValues } from '../options.js';
import { replaceContainer } from '../replace/replace.js';
import { RunState } from '../replace/run-state.js';
import { RUNTIME, containerName, imageNameOf } from '../target.js';

function oldTarget(info: Docker.ContainerInspectInfo): Target {
  return {
    runtime: RUNTIME,
    id: info.Id,
    name: containerName(info.Name),
    image: imageNameOf(info.Config.Image, info.Config.Labels ?? {}),
    imageId: info.Image,
    repoDigests: [],
    labels: info.Config.Labels ?? {},
    imageLabels: {},
    state: info.State.Running ? 'running' : info.State.Status,
    dependsOn: [],
    isSelf: false,
  };
}

export async function runOrchestrator(declared: DockerOptionValues, env: NodeJS.ProcessEnv, logger: Logger): Promise<number> {
  const oldId = env[ORCHESTRATOR_ENV.oldId];
  const newImageId = env[ORCHESTRATOR_ENV.newImageId];
  const newImage = env[ORCHESTRATOR_ENV.newImage];
  if (!oldId || !newImageId || !newImage) {
    logger.error({ needs: Object.values(ORCHESTRATOR_ENV) }, 'self-update helper: started without its variables; nothing done');
    return 1;
  }
  const options = {
    ...declared,
    selfContainerId: undefined,
    apiVersion: declared.apiVersion || undefined,
    certPath: declared.certPath || undefined,
    authFor: undefined,
  };
  // The old container's engine is the first --host entry: the one the old instance found itself on.
  const [spec] = engineSpecs(declared.host, { tlsVerify: declared.tlsVerify, certPath: options.certPath });
  if (!spec) return 1;
  const { runtime } = createEngine(spec, options, logger, () => undefined);
  const info = await inspectOrUndefined(runtime.docker, oldId);
  if (!info) {
    logger.error({ container: oldId }, 'self-update helper: the old container is gone; nothing done');
    return 1;
  }
  const target = oldTarget(info);
  // Run as a rollback runs a local image (docs/state.md#rollback-on-demand): the image the old instance
  // pulled, never pulled again, under the reference it was pulled by.
  const plan: UpdatePlan = {
    target,
    staleness: { source: 'ephemeral-self-update', stale: true, targetImageId: newImageId, targetImage: newImage },
    restartOnly: false,
    dependents: [],
  };
  try {
    const result = await replaceContainer(runtime, {
      plan,
      state: new RunState(),
      isOwn: false,
      logger,
      pull: () => Promise.reject(new Error('the self-update helper never pulls')),
      signal: new AbortController().signal,
    });
    if (result.outcome === 'updated') {
      logger.info({ container: target.name, new_container: result.newContainerId, image: newImage }, 'self-update helper: replaced and proven; the old container is removed');
      return 0;
    }
    logger.error({ container: target.name, outcome: result.outcome, err: result.error ?? result.reason, rolled_back: result.rolledBack }, 'self-update helper: not replaced');
    return 1;
  } catch (err) {
    logger.error({ container: target.name, err: errorMessage(err) }, 'self-update helper failed');
    return 1;
  }
}
