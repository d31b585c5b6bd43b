// What `tidewatch agent` reads of its configuration (docs/fleet.md#agent-mode): the agents plugin's options,
// the Docker runtime's connection to its one engine, the state's --data-dir (its key) and the logger's
// settings. Taken from a resolution by the full option table (server/config/) or by the agent's lean one
// (./options.ts); both give these same values (test/server/agent-options.test.ts).
import type { AgentOptions } from '../../plugins/agents/options.js';
import type { ResolvedConfig } from '../config/resolve-values.js';
import type { LoggerSettings } from '../logger.js';

export interface AgentSettings {
  readonly agent: Partial<AgentOptions>;
  /** --host as given: the agent refuses more than one. */
  readonly hosts: readonly string[];
  readonly tlsVerify: boolean;
  readonly certPath: string | undefined;
  readonly dataDir: string;
  readonly log: LoggerSettings;
}

function pluginOptions(resolved: ResolvedConfig, name: string): Record<string, unknown> {
  return (resolved.plugins.find((use) => use.plugin.name === name)?.options ?? {}) as Record<string, unknown>;
}

export function agentSettings(resolved: ResolvedConfig): AgentSettings {
  const docker = pluginOptions(resolved, 'docker');
  const hosts = docker['host'];
  const { config } = resolved;
  return {
    agent: pluginOptions(resolved, 'agents') as Partial<AgentOptions>,
    hosts: typeof hosts === 'string' ? [hosts] : ((hosts as readonly string[] | undefined) ?? []),
    tlsVerify: docker['tlsVerify'] === true,
    certPath: typeof docker['certPath'] === 'string' && docker['certPath'] !== '' ? docker['certPath'] : undefined,
    dataDir: String(pluginOptions(resolved, 'state')['dataDir'] ?? ''),
    log: { level: config.logLevel, format: config.logFormat, debug: config.debug, trace: config.trace },
  };
}
