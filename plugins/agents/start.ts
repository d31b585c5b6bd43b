// The agents plugin's start: its store over the state store (memory only without --data-dir), the
// AGENT_HOSTS service for the Docker runtime, the routes and the tunnel on the API's registration point.
import { httpRoutes, type TidewatchCore } from '../../core/index.js';
import { AGENT_HOSTS } from './contracts.js';
import { STATE_STORE } from '../../contracts/index.js';
import { AgentRegistry } from './registry.js';
import { agentRoutes } from './routes.js';
import { AgentStore } from './store.js';
import { tunnelRoute } from './tunnel.js';

export function startAgents(core: TidewatchCore): void {
  const logger = core.logger.child({ plugin: 'agents' });
  const store = core.services.get(STATE_STORE);
  if (!store) {
    logger.debug('no state store: agents are off');
    return;
  }
  const registry = new AgentRegistry(new AgentStore(store), logger);
  core.services.provide(AGENT_HOSTS, registry);
  agentRoutes(core, registry, logger);
  const tunnel = tunnelRoute(registry, logger, 'tidewatch');
  httpRoutes(core.services).registerUpgrade(tunnel);
  core.onClose(() => {
    registry.closeAll();
    tunnel.close();
  });
}
