// The Swarm runtime plugin: Swarm services on the engines that are managers become targets, checked by the
// registry source like containers, and updated the way `docker service update --image` does it: Swarm
// replaces the tasks with its own rolling update and rollback; Tidewatch hands it the pinned new digest and
// follows the update status (docs/swarm.md). It reaches the engines through the docker runtime's
// DOCKER_ENGINES service. This module holds only the declaration: the runtime is imported when applied.
import { definePlugin } from '../../core/index.js';
import { DOCKER_ENGINES } from '../../contracts/index.js';
import { swarmOptions } from './options.js';
import { RUNTIME } from './target.js';

export const PLUGIN_NAME = RUNTIME;

export type { SwarmPluginOptions } from './options.js';
export { swarmOptions } from './options.js';

export const swarmPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: swarmOptions,
  requires: [DOCKER_ENGINES],
  async apply(core, options) {
    const { applySwarm } = await import('./start.js');
    applySwarm(core, options);
  },
});
export default swarmPlugin;
