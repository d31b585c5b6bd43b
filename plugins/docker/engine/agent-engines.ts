// The engines of a run when agents dial in (docs/fleet.md): the --host engines, fixed at start, and one
// Engine per enrolled agent (host `agent://NAME`), reached through its tunnel (AGENT_HOSTS, provided by the
// agents plugin). An agent's Engine is made when it is enrolled or first known and dropped from the runs when
// it is revoked; the object itself is kept for the process (its update taps, tapped once, stay bound to it),
// so a name enrolled again gets it back. Offline agents stay in the runs: their discovery fails with
// `host agent://NAME offline since <time>`, and their last-known containers carry that error. An agent that
// comes online for the first time in this process is repaired (an update interrupted on it, by a killed
// controller, is put right) and its engine version read for `GET /v1/agents`.
import { errorMessage, type Logger } from '../../../core/index.js';
import type { AgentHost, AgentHosts } from '../../../contracts/index.js';
import type { Engine } from './engines.js';

export class EngineSet {
  readonly #agents = new Map<string, Engine>();
  readonly #active = new Set<string>();

  constructor(readonly fixed: readonly Engine[]) {}

  /** Every engine a run covers now: the --host ones first. */
  all(): Engine[] {
    const agents = [...this.#active].map((name) => this.#agents.get(name) as Engine);
    return agents.length === 0 ? [...this.fixed] : [...this.fixed, ...agents];
  }

  agent(name: string): Engine | undefined {
    return this.#active.has(name) ? this.#agents.get(name) : undefined;
  }

  /** The agent's Engine, made with `make` the first time its name is seen. */
  activate(name: string, make: () => Engine): { engine: Engine; made: boolean } {
    this.#active.add(name);
    const known = this.#agents.get(name);
    if (known) return { engine: known, made: false };
    const engine = make();
    this.#agents.set(name, engine);
    return { engine, made: true };
  }

  drop(name: string): void {
    this.#active.delete(name);
  }
}

export interface FollowOptions {
  readonly agents: AgentHosts;
  readonly set: EngineSet;
  readonly logger: Logger;
  /** A new Engine for the agent (its tunnel as transport); `made` once per name for the process. */
  readonly make: (agent: AgentHost) => Engine;
  /** Called once per Engine made: the runtime's per-engine taps. */
  readonly made: (engine: Engine) => void;
}

/** Keeps `set` in step with the agents from now on; returns the function that stops following. */
export function followAgents({ agents, set, logger, make, made }: FollowOptions): () => void {
  const online = (name: string, engine: Engine) => {
    void (async () => {
      try {
        const version = await engine.runtime.docker.version();
        agents.report(name, { engineVersion: version.Version });
        // Once per process: a reconnect in the middle of a run must not "repair" the replacement under way.
        if (!engine.repaired) await engine.repair();
      } catch (err) {
        logger.warn({ host: engine.host, err: errorMessage(err) }, 'agent engine not ready; its next discovery tries again');
      }
    })();
  };
  const activate = (agent: AgentHost) => {
    const result = set.activate(agent.name, () => make(agent));
    if (result.made) made(result.engine);
    return result.engine;
  };
  for (const agent of agents.list()) {
    const engine = activate(agent);
    if (agent.online) online(agent.name, engine);
  }
  return agents.watch((change) => {
    const { agent } = change;
    if (change.kind === 'removed') {
      set.drop(agent.name);
      logger.info({ host: agent.host }, 'agent revoked: its engine is no longer watched');
      return;
    }
    const engine = activate(agent);
    if (change.kind === 'online') online(agent.name, engine);
  });
}
