// Discovery: each engine is asked whether it is a Swarm manager (GET /swarm); the services of each swarm are
// listed once, on the first of its managers among the configured engines (two engines may be managers of one
// swarm: its cluster id tells). An engine that does not answer is logged and left out: its containers' own
// errors come from the docker runtime, and no service is ever updated through an engine that is down.
import { errorMessage, type Logger, type Target } from '../../core/index.js';
import type { EngineApi } from '../../contracts/index.js';
import type { SwarmCluster, SwarmService } from './engine-types.js';
import { serviceTarget } from './target.js';

export interface ServiceDiscovery {
  readonly signal?: AbortSignal;
  readonly logger: Logger;
  /** Receives each swarm's services as soon as they are listed (the core's `ctx.announce`). */
  readonly announce?: (targets: readonly Target[]) => void;
}

/**
 * Answers of GET /swarm from an engine that manages no swarm: 503 from Docker outside a swarm or on a worker,
 * 404 from Podman, which has no Swarm API (docs/podman.md).
 */
const NOT_A_MANAGER = new Set([503, 404]);

/**
 * The docker runtime's code for a socket proxy's refusal (docs/errors.md): a proxy without SWARM=1 in front of an
 * engine that runs no swarm is the least-privilege setting for containers only (docs/security.md), so the
 * refusal of GET /swarm is said once per engine, not warned about on every run.
 */
const PROXY_REFUSED = 'TW_ERR_DOCKER_PROXY_REFUSED';
const toldRefused = new WeakSet<EngineApi>();

/**
 * The swarm's cluster id when the engine is a manager of it, else undefined. Asked with GET /swarm, which only
 * a manager answers: GET /info would tell too, but the engine counts every container and image for it, on
 * every run of every plain Docker host (docs/swarm.md).
 */
export async function managedCluster(engine: EngineApi, signal?: AbortSignal): Promise<string | undefined> {
  let swarm: SwarmCluster;
  try {
    swarm = await engine.request<SwarmCluster>('GET', '/swarm', signal ? { signal } : {});
  } catch (err) {
    if (NOT_A_MANAGER.has((err as { statusCode?: unknown }).statusCode as number)) return undefined;
    throw err;
  }
  // A manager always names its cluster; the engine's host stands in should one not.
  return swarm.ID || engine.host;
}

export async function discoverServices(engines: readonly EngineApi[], options: ServiceDiscovery): Promise<Target[]> {
  const { signal, logger } = options;
  const clusters = await Promise.all(
    engines.map((engine) =>
      managedCluster(engine, signal).catch((err: unknown) => {
        signal?.throwIfAborted();
        if ((err as { code?: unknown }).code === PROXY_REFUSED) {
          if (!toldRefused.has(engine)) logger.info({ host: engine.host, err: errorMessage(err) }, 'the socket proxy keeps Swarm from view: services are not checked');
          toldRefused.add(engine);
          return undefined;
        }
        logger.warn({ host: engine.host, err: errorMessage(err) }, 'cannot tell whether the engine is a Swarm manager; its services are not checked');
        return undefined;
      }),
    ),
  );
  const managers = new Map<string, EngineApi>();
  engines.forEach((engine, i) => {
    const cluster = clusters[i];
    if (cluster !== undefined && !managers.has(cluster)) managers.set(cluster, engine);
  });
  const lists = await Promise.all(
    [...managers.values()].map(async (engine) => {
      try {
        const services = await engine.request<SwarmService[]>('GET', '/services', signal ? { signal } : {});
        const targets = services.map((service) => serviceTarget(service, engine.host));
        options.announce?.(targets);
        return targets;
      } catch (err) {
        signal?.throwIfAborted();
        logger.warn({ host: engine.host, err: errorMessage(err) }, 'cannot list the Swarm services');
        return [];
      }
    }),
  );
  return lists.flat();
}
