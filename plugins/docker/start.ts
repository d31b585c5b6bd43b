// The Docker runtime plugin's start-up, loaded only when the plugin is applied (its index stays cheap to
// import for --help): connect, repair what an interrupted replacement left behind, then tap discovery,
// selection and updates.
import {
  DOCKER_ENGINES,
  LOCAL_IMAGES,
  PULL_CREDENTIALS,
  errorMessage,
  readLabel,
  type RunContext,
  type Target,
  type TidewatchCore,
} from '../../core/index.js';
import { createDockerClient, pingEngine } from './client.js';
import { discoverContainers } from './discovery.js';
import { localImages } from './local-images.js';
import type { DockerOptionValues, ResolvedDockerOptions } from './options.js';
import { repairInterrupted } from './repair.js';
import { createRuntime } from './runtime.js';
import { detectOwnContainerId } from './self-container.js';
import { effectiveScope, selectDockerTargets } from './selection.js';
import { RUNTIME as PLUGIN_NAME } from './target.js';
import { tapUpdates } from './update-taps.js';

/** What the plugin's parts use: the declared values, pull credentials from the registry plugin's service. */
function resolveOptions(core: TidewatchCore, options: DockerOptionValues): ResolvedDockerOptions {
  return {
    ...options,
    selfContainerId: options.selfContainerId || undefined,
    apiVersion: options.apiVersion || undefined,
    certPath: options.certPath || undefined,
    // Watchtower skips self-update in run-once mode: the process is about to exit anyway.
    selfUpdate: options.selfUpdate && core.mode !== 'once',
    // Looked up at pull time: without the service (no registry plugin loaded) pulls are anonymous.
    authFor: async (imageRef) => core.services.get(PULL_CREDENTIALS)?.authFor(imageRef),
  };
}

export async function applyDocker(core: TidewatchCore, declared: DockerOptionValues): Promise<void> {
  const options = resolveOptions(core, declared);
  const docker = createDockerClient(options);
  const logger = core.logger.child({ plugin: PLUGIN_NAME });
  // Detected once: a process does not move between containers. Discovery may still learn it from the
  // hostname when the files say nothing.
  let ownId = options.selfContainerId ?? (await detectOwnContainerId());
  const runtime = createRuntime(docker, options, logger, () => ownId);

  core.health.addReadinessCheck(PLUGIN_NAME, (signal) => pingEngine(docker, signal));
  core.services.provide(LOCAL_IMAGES, localImages(docker));
  core.services.provide(DOCKER_ENGINES, { list: () => [docker] });

  // Repair must happen before anything is replaced. When the engine is not reachable at start, the
  // service still starts (readiness reports the engine) and the repair runs before the first discovery.
  let repaired = false;
  let repairing: Promise<void> | undefined;
  const repairOnce = async () => {
    const report = await repairInterrupted(runtime);
    repaired = true;
    if (report.restored.length + report.removed.length + report.predecessors.length > 0) {
      logger.warn({ ...report }, 'repaired what an interrupted update left behind');
    }
    if (report.problems.length > 0) logger.error({ problems: report.problems }, 'could not repair everything');
  };
  // Concurrent discoveries share one repair; a failed one is tried again next time.
  const repair = () => (repairing ??= repairOnce().finally(() => (repairing = undefined)));

  // The scope of each run, read from the list before any target is announced: selection then sees the
  // targets an image at a time, the own container maybe not among them (docs/performance.md).
  const scopes = new WeakMap<RunContext, string>();
  core.hooks.discover.tapPromise(PLUGIN_NAME, async (targets, ctx) => {
    if (!repaired) await repair();
    const found = await discoverContainers(
      docker,
      {
        ...options,
        signal: ctx.signal,
        announce: (batch) => ctx.announce(batch),
        listed: (own) => scopes.set(ctx, options.scope || (own && readLabel(own.labels, 'scope')) || ''),
      },
      ownId,
    );
    ownId ??= found.ownId;
    return [...targets, ...found.targets];
  });

  core.hooks.select.tap(PLUGIN_NAME, (targets: Target[], ctx: RunContext) =>
    selectDockerTargets(targets, {
      names: options.names,
      disableContainers: options.disableContainers,
      labelEnable: options.labelEnable,
      scope: scopes.get(ctx) ?? effectiveScope(options.scope, targets, ownId),
    }),
  );

  tapUpdates(core, runtime);

  try {
    await repair();
  } catch (err) {
    logger.warn({ err: errorMessage(err) }, 'engine not reachable at start; repair deferred to the first run');
  }
}

