// The agents plugin (docs/fleet.md): the controller's side of the fleet's hosts that dial out. It keeps the
// enrolled agents in the state store, serves `/v1/agents…` and the tunnel `GET /v1/agents/connect` on the
// API's registration point (endpoint name `agents`), and provides AGENT_HOSTS, through which the Docker
// runtime makes one Engine per agent. It declares the agent mode's options (`tidewatch agent`, server/agent/).
// Applied before the Docker runtime (server/builtins.ts), which finds the service when it starts.
import { definePlugin } from '../../core/index.js';
import { STATE_STORE } from '../../contracts/index.js';
import { apiServes } from '../../contracts/shared/api-endpoints.js';
import { agentOptions } from './options.js';
import { ENROLLED } from './store-names.js';

export const PLUGIN_NAME = 'agents';

export const agentsPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: agentOptions,
  async apply(core) {
    // An agent enrols and dials in only through the API's `agents` endpoint: without it, and with none enrolled
    // before, no agent can exist, and the registry, tunnel and routes stay unloaded (docs/plugins.md#loading-code-at-first-use).
    const store = core.services.get(STATE_STORE);
    if (store && !apiServes(core, 'agents') && store.recordsPage(ENROLLED, { limit: 1 }).entries.length === 0) {
      core.logger.child({ plugin: PLUGIN_NAME }).debug('no agent enrolled and the agents endpoint is off: agents are off');
      return;
    }
    const { startAgents } = await import('./start.js');
    startAgents(core);
  },
});
export default agentsPlugin;
export { agentOptions, type AgentOptions } from './options.js';
