// The controller's agents (docs/fleet.md): who is enrolled (store.ts), which have a tunnel now, since when
// the others are offline, and the AGENT_HOSTS service through which the Docker runtime reaches each agent's
// engine: `connect` opens one stream of the agent's tunnel, or fails with `host agent://NAME offline since
// <time>`. The runtime is told of every change (enrolled, online, offline, revoked) and keeps one Engine per
// agent (plugins/docker/engine/agent-engines.ts).
import type { Duplex } from 'node:stream';
import { TidewatchError, type Logger } from '../../core/index.js';
import type { AgentEngineFacts, AgentHost, AgentHostChange, AgentHosts } from './contracts.js';
import type { Mux } from './mux.js';
import { CLOSE } from './protocol.js';
import type { AgentStore, EnrolledAgent } from './store.js';

export const AGENT_OFFLINE = 'TW_ERR_AGENT_OFFLINE';
/** How often last_seen is written to the store while an agent stays online. */
const SEEN_WRITE_MS = 60_000;

/** One live tunnel, as tunnel.ts hands it over once the agent proved its key. */
export interface Tunnel {
  readonly mux: Mux;
  readonly connectedAt: string;
  readonly version: string;
  readonly ip: string;
  /** Closes the WebSocket with an application code (protocol.ts CLOSE). */
  close(code: number, reason: string): void;
  /** Sends a control message (the allowed call groups). */
  control(message: Record<string, unknown>): void;
}

/** One agent as `GET /v1/agents` lists it (docs/fleet.md#offline-is-visible). */
export interface AgentView {
  readonly name: string;
  readonly host: string;
  readonly state: 'online' | 'offline';
  readonly stage: number;
  readonly enrolled_at: string;
  readonly connected_at: string | null;
  readonly last_seen: string | null;
  readonly version: string | null;
  readonly engine_version: string | null;
  readonly containers: number | null;
}

export function agentHost(name: string): string {
  return `agent://${name}`;
}

export class AgentRegistry implements AgentHosts {
  readonly #tunnels = new Map<string, Tunnel>();
  readonly #offlineSince = new Map<string, string>();
  readonly #facts = new Map<string, AgentEngineFacts>();
  readonly #listeners = new Set<(change: AgentHostChange) => void>();
  readonly #seenWritten = new Map<string, number>();
  #calls: readonly string[] = ['check'];

  constructor(
    readonly store: AgentStore,
    readonly logger: Logger,
  ) {}

  get calls(): readonly string[] {
    return this.#calls;
  }

  #host(agent: EnrolledAgent): AgentHost {
    const online = this.#tunnels.has(agent.name);
    const since = this.#offlineSince.get(agent.name) ?? agent.last_seen ?? agent.enrolled_at;
    return { name: agent.name, host: agentHost(agent.name), stage: agent.stage, online, ...(online ? {} : { offlineSince: since }) };
  }

  list(): readonly AgentHost[] {
    return this.store.agents().map((agent) => this.#host(agent));
  }

  connect(name: string): Duplex {
    const tunnel = this.#tunnels.get(name);
    if (!tunnel) {
      const agent = this.store.agent(name);
      const since = agent ? (this.#host(agent).offlineSince ?? 'unknown') : 'revoked';
      throw new TidewatchError(AGENT_OFFLINE, `host ${agentHost(name)} offline since ${since}`, 503);
    }
    return tunnel.mux.open();
  }

  watch(listener: (change: AgentHostChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  allowCalls(groups: readonly string[]): void {
    this.#calls = [...groups];
    for (const tunnel of this.#tunnels.values()) tunnel.control({ type: 'calls', calls: this.#calls });
  }

  report(name: string, facts: AgentEngineFacts): void {
    this.#facts.set(name, { ...this.#facts.get(name), ...facts });
  }

  #emit(kind: AgentHostChange['kind'], agent: EnrolledAgent): void {
    const change = { kind, agent: this.#host(agent) };
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (err) {
        this.logger.error({ err: (err as Error).message, agent: agent.name }, 'an agent listener failed');
      }
    }
  }

  enrolled(agent: EnrolledAgent): void {
    this.#emit('added', agent);
  }

  /** The agent proved its key: its tunnel replaces any older one (a reconnect the old side has not noticed). */
  online(agent: EnrolledAgent, tunnel: Tunnel): void {
    const old = this.#tunnels.get(agent.name);
    this.#tunnels.set(agent.name, tunnel);
    this.#offlineSince.delete(agent.name);
    if (old) {
      old.mux.close('replaced by a new connection of the same agent');
      old.close(CLOSE.REPLACED, 'replaced by a new connection');
    }
    agent.version = tunnel.version;
    this.seen(agent.name, true);
    this.logger.info({ agent: agent.name, ip: tunnel.ip, version: tunnel.version }, 'agent online');
    this.#emit('online', agent);
  }

  /** The tunnel closed; nothing when a newer one replaced it already. */
  offline(name: string, tunnel: Tunnel, why: string): void {
    if (this.#tunnels.get(name) !== tunnel) return;
    this.#tunnels.delete(name);
    tunnel.mux.close(`host ${agentHost(name)} went offline`);
    const now = new Date().toISOString();
    this.#offlineSince.set(name, now);
    const agent = this.store.agent(name);
    if (!agent) return;
    agent.last_seen = now;
    this.store.save(agent);
    this.logger.warn({ agent: name, why }, 'agent offline');
    this.#emit('offline', agent);
  }

  /** Any message or pong from the agent; written to the store at most once a minute. */
  seen(name: string, force = false): void {
    const agent = this.store.agent(name);
    if (!agent) return;
    const now = Date.now();
    agent.last_seen = new Date(now).toISOString();
    if (force || now - (this.#seenWritten.get(name) ?? 0) >= SEEN_WRITE_MS) {
      this.#seenWritten.set(name, now);
      this.store.save(agent);
    }
  }

  /** Revokes at once: the tunnel closes and the key is refused from now on. */
  revoke(name: string): EnrolledAgent | undefined {
    const agent = this.store.revoke(name);
    if (!agent) return undefined;
    const tunnel = this.#tunnels.get(name);
    this.#tunnels.delete(name);
    this.#offlineSince.delete(name);
    this.#facts.delete(name);
    if (tunnel) {
      tunnel.mux.close(`host ${agentHost(name)} was revoked`);
      tunnel.close(CLOSE.REVOKED, 'revoked');
    }
    this.#emit('removed', agent);
    return agent;
  }

  isOnline(name: string): boolean {
    return this.#tunnels.has(name);
  }

  view(): AgentView[] {
    return this.store.agents().map((agent) => {
      const tunnel = this.#tunnels.get(agent.name);
      const facts = this.#facts.get(agent.name);
      return {
        name: agent.name,
        host: agentHost(agent.name),
        state: tunnel ? 'online' : 'offline',
        stage: agent.stage,
        enrolled_at: agent.enrolled_at,
        connected_at: tunnel?.connectedAt ?? null,
        last_seen: agent.last_seen,
        version: agent.version,
        engine_version: facts?.engineVersion ?? null,
        containers: facts?.containers ?? null,
      };
    });
  }

  /** Shutdown: every tunnel closes (agents reconnect to the next process). */
  closeAll(): void {
    for (const [name, tunnel] of [...this.#tunnels]) {
      this.#tunnels.delete(name);
      tunnel.mux.close('the controller is stopping');
      tunnel.close(1001, 'controller stopping');
    }
  }
}
