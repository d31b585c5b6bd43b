// The Docker runtime plugin: discovers containers as targets, applies the Watchtower fork's selection
// filters, and replaces stale containers without ever losing one (replace.ts). At start it repairs what
// an interrupted replacement left behind (replace/repair.ts) before any run can begin. This module holds only the
// declaration: the runtime (dockerode and the rest) is imported when the plugin is applied.
import { definePlugin, invalidOptions, type Logger } from '../../core/index.js';
import type { DockerOptionValues, DockerPluginOptions } from './options.js';
import { dockerOptions } from './options.js';
import { RUNTIME } from './target.js';

export const PLUGIN_NAME = RUNTIME;

export type { AuthFor, DockerPluginOptions, RegistryAuth } from './options.js';
export { dockerOptions } from './options.js';

export const dockerPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: dockerOptions,
  check(options, label) {
    if (options.monitorOnly && options.rollingRestart) {
      throw invalidOptions(
        'rolling-restart',
        `${label('monitorOnly')} and ${label('rollingRestart')} cannot be used together: monitor-only never restarts containers`,
      );
    }
    const warnings: string[] = [];
    if (options.stopTimeoutMs > 0 && options.stopTimeoutMs < 1000) {
      warnings.push(`${label('stopTimeoutMs')} is under a second: containers get under a second to stop before they are killed`);
    }
    return warnings;
  },
  async apply(core, options) {
    const { applyDocker } = await import('./start.js');
    await applyDocker(core, options);
  },
});
export default dockerPlugin;

/**
 * The ephemeral self-update helper's mode (--self-update-orchestrator, docs/image.md#ephemeral-self-update):
 * the server runs it instead of the service. `options` are the plugin's resolved values; loaded only then.
 */
export async function runSelfUpdateOrchestrator(options: DockerPluginOptions, env: NodeJS.ProcessEnv, logger: Logger): Promise<number> {
  const { runOrchestrator } = await import('./self/orchestrator.js');
  return runOrchestrator(options as DockerOptionValues, env, logger);
}
