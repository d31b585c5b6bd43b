// The agents plugin (docs/fleet.md): the controller's side of the fleet's hosts that dial out. It keeps the
// enrolled agents in the state store, serves `/v1/agents…` and the tunnel `GET /v1/agents/connect` on the
// API's registration point (endpoint name `agents`), and provides AGENT_HOSTS, through which the Docker
// runtime makes one Engine per agent. It declares the agent mode's options (`tidewatch agent`, server/agent/).
// Applied before the Docker runtime (server/builtins.ts), which finds the service when it starts.
import { definePlugin } from '../../core/index.js';
import { agentOptions } from './options.js';

export const PLUGIN_NAME = 'agents';

export const agentsPlugin = definePlugin({
  name: PLUGIN_NAME,
  options: agentOptions,
  async apply(core) {
    const { startAgents } = await import('./start.js');
    startAgents(core);
  },
});
export default agentsPlugin;
export { agentOptions, type AgentOptions } from './options.js';
