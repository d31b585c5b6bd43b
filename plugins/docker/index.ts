// The Docker runtime plugin: discovers containers as targets, applies the Watchtower fork's selection
// filters, and replaces stale containers without ever losing one (replace.ts). At start it repairs what
// an interrupted replacement left behind (repair.ts) before any run can begin.
import { LOCAL_IMAGES, errorMessage, provideService, type Target, type TidewatchCore, type TidewatchPlugin } from '../../core/index.js';
import { createDockerClient, pingEngine } from './client.js';
import { discoverContainers } from './discovery.js';
import { localImages } from './local-images.js';
import { dockerOptionsSchema, resolveOptions, type DockerPluginOptions } from './options.js';
import { repairInterrupted } from './repair.js';
import { createRuntime } from './runtime.js';
import { detectOwnContainerId } from './self-container.js';
import { effectiveScope, selectDockerTargets } from './selection.js';
import { RUNTIME } from './target.js';
import { tapUpdates } from './update-taps.js';

export const PLUGIN_NAME = RUNTIME;

export { createDockerClient, dockerodeOptions, parseDockerHost, pingEngine } from './client.js';
export type { DockerConnectionOptions, DockerEndpoint } from './client.js';
export type { AuthFor, DockerPluginOptions, RegistryAuth } from './options.js';
export type { RepairReport } from './repair.js';

class DockerPlugin implements TidewatchPlugin<DockerPluginOptions> {
  readonly name = PLUGIN_NAME;
  readonly optionsSchema = dockerOptionsSchema;

  async apply(core: TidewatchCore, rawOptions: DockerPluginOptions): Promise<void> {
    const options = resolveOptions(rawOptions);
    if (options.monitorOnly && options.rollingRestart) {
      throw new Error('monitorOnly and rollingRestart cannot be combined');
    }
    const docker = createDockerClient(options);
    const logger = core.logger.child({ plugin: PLUGIN_NAME });
    // Detected once: a process does not move between containers. Discovery may still learn it from the
    // hostname when the files say nothing.
    let ownId = options.selfContainerId ?? (await detectOwnContainerId());
    const runtime = createRuntime(docker, options, logger, () => ownId);

    core.health.addReadinessCheck(PLUGIN_NAME, (signal) => pingEngine(docker, signal));
    provideService(core, LOCAL_IMAGES, localImages(docker));

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

    core.hooks.discover.tapPromise(PLUGIN_NAME, async (targets, ctx) => {
      if (!repaired) await repair();
      const found = await discoverContainers(docker, { ...options, signal: ctx.signal }, ownId);
      ownId ??= found.ownId;
      return [...targets, ...found.targets];
    });

    core.hooks.select.tap(PLUGIN_NAME, (targets: Target[]) =>
      selectDockerTargets(targets, {
        names: options.names,
        disableContainers: options.disableContainers,
        labelEnable: options.labelEnable,
        scope: effectiveScope(options.scope, targets, ownId),
      }),
    );

    tapUpdates(core, runtime);

    try {
      await repair();
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'engine not reachable at start; repair deferred to the first run');
    }
  }
}

export const dockerPlugin: TidewatchPlugin<DockerPluginOptions> = new DockerPlugin();
export default dockerPlugin;
