// The agent mode's options (decisions §19, docs/fleet.md#agent-mode): read by `tidewatch agent` (server/agent/),
// declared here once like every option, so flags, variables, the config file, --help and docs/options.md agree.
// The controller itself needs none: agents are enrolled through its API (endpoint name `agents`).
import { option, type OptionValues } from '../../core/declarations.js';

const group = 'Fleet agent (tidewatch agent)';

/** Agent names: a host name's characters, bounded (they are part of `agent://NAME`, logs, records). */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `wss://controller:8080`, or `ws://` to a loopback address only: the tunnel carries registry credentials. */
export function parseController(raw: string): string {
  const value = raw.trim();
  if (value === '') return '';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`expected the controller's URL (wss://controller.example:8080), got ${JSON.stringify(value.slice(0, 200))}`);
  }
  if (url.username || url.password) throw new Error('the controller URL must not carry credentials');
  if (url.protocol !== 'wss:' && !(url.protocol === 'ws:' && isLoopback(url.hostname))) {
    throw new Error(`expected a wss: URL (ws: only to a loopback address), got ${JSON.stringify(`${url.protocol}//${url.host}`)}`);
  }
  return value;
}

export function parseAgentName(raw: string): string {
  const value = raw.trim();
  if (value !== '' && !AGENT_NAME.test(value)) {
    throw new Error('expected 1-63 letters, digits, dots, dashes or underscores, starting with a letter or digit');
  }
  return value;
}

export const agentOptions = {
  controller: option.string({
    flag: 'controller', valueName: '<url>', watchtowerEnv: null, group, parse: parseController,
    description: 'Agent mode: the controller to dial (wss://host:port; ws:// only to a loopback address).',
  }),
  enrolToken: option.string({
    flag: 'enrol-token', valueName: '<token|file>', watchtowerEnv: null, secret: true, group,
    description: 'Agent mode: the one-time enrolment token (or a file holding it); ignored once the agent holds an enrolled key.',
  }),
  agentName: option.string({
    flag: 'agent-name', valueName: '<name>', watchtowerEnv: null, group, parse: parseAgentName,
    description: "Agent mode: the agent's name at the controller (its host is agent://NAME); default: the host name.",
  }),
  agentStage: option.integer({
    flag: 'agent-stage', valueName: '<n>', default: 1, min: 1, max: 1000, watchtowerEnv: null, group,
    description: "Agent mode: the rollout stage of the agent's host (docs/rollouts.md).",
  }),
};

export type AgentOptions = OptionValues<typeof agentOptions>;
