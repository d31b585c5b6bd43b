// The Docker runtime plugin: discovers containers as targets, applies the Watchtower fork's selection
// filters, and (see apply.ts) replaces stale containers without ever losing one.
import type { Target, TidewatchCore, TidewatchPlugin } from '../../core/index.js';
import { createDockerClient, pingEngine } from './client.js';
import { discoverContainers } from './discovery.js';
import { dockerOptionsSchema, resolveOptions, type DockerPluginOptions } from './options.js';
import { detectOwnContainerId } from './self-container.js';
import { effectiveScope, selectDockerTargets } from './selection.js';

export const PLUGIN_NAME = 'docker';

export { createDockerClient, dockerodeOptions, parseDockerHost } from './client.js';
export type { DockerConnectionOptions, DockerEndpoint } from './client.js';
export type { AuthFor, DockerPluginOptions, RegistryAuth } from './options.js';

class DockerPlugin implements TidewatchPlugin<DockerPluginOptions> {
  readonly name = PLUGIN_NAME;
  readonly optionsSchema = dockerOptionsSchema;

  async apply(core: TidewatchCore, rawOptions: DockerPluginOptions): Promise<void> {
    const options = resolveOptions(rawOptions);
    const docker = createDockerClient(options);
    // Detected once: a process does not move between containers. Discovery may still learn it from the
    // hostname when the files say nothing.
    let ownId = options.selfContainerId ?? (await detectOwnContainerId());

    core.health.addReadinessCheck(PLUGIN_NAME, async (signal) => {
      await pingEngine(docker, signal);
    });

    core.hooks.discover.tapPromise(PLUGIN_NAME, async (targets, ctx) => {
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
  }
}

export const dockerPlugin: TidewatchPlugin<DockerPluginOptions> = new DockerPlugin();
export default dockerPlugin;
