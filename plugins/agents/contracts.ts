// The agents plugin's contract with the Docker runtime (docs/plugins.md#contracts, docs/fleet.md): the agents'
// tunnels as Engine connections. Re-exported by the contracts entry (contracts/index.ts); the runtime imports it
// from there, never this plugin.
import type { Duplex } from 'node:stream';
import { defineService, type ServiceKey } from '../../core/index.js';

/**
 * One agent as the Docker runtime sees it (docs/fleet.md): a host that dialled in, named `agent://NAME` in
 * records, filters and the audit trail, reached through a tunnel the agents plugin holds.
 */
export interface AgentHost {
  readonly name: string;
  /** `agent://NAME`. */
  readonly host: string;
  /** Its rollout stage (`--agent-stage`, default 1). */
  readonly stage: number;
  readonly online: boolean;
  /** RFC 3339: when it went offline (or was last seen before this process started); undefined while online. */
  readonly offlineSince?: string;
}

/** An agent enrolled, came online, went offline or was revoked. */
export interface AgentHostChange {
  readonly kind: 'added' | 'online' | 'offline' | 'removed';
  readonly agent: AgentHost;
}

/** What the runtime learned of an agent's engine, for `GET /v1/agents`. */
export interface AgentEngineFacts {
  readonly engineVersion?: string;
  readonly containers?: number;
}

/**
 * The agents' tunnels as Engine connections (docs/fleet.md): provided by the agents plugin, used (when
 * present) by the Docker runtime, which makes one Engine per agent. `connect` opens one byte stream to the
 * agent's engine (the runtime speaks HTTP/1.1 on it, as on a socket); it throws `TW_ERR_AGENT_OFFLINE`
 * (`host agent://NAME offline since <time>`) when the agent has no tunnel.
 */
export interface AgentHosts {
  list(): readonly AgentHost[];
  connect(name: string): Duplex;
  /** Tells `listener` of every change from now on; returns the function that stops it. */
  watch(listener: (change: AgentHostChange) => void): () => void;
  /**
   * The Engine call groups of docs/security.md "Engine endpoints per mode" (`check`, `update`, `cleanup`,
   * `hooks`, `swarm`) the controller's mode needs: sent to every agent, which forwards nothing else.
   */
  allowCalls(groups: readonly string[]): void;
  report(name: string, facts: AgentEngineFacts): void;
}
export const AGENT_HOSTS: ServiceKey<AgentHosts> = defineService<AgentHosts>('agent-hosts');
