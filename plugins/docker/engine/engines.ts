// One runtime per configured engine (docs/hosts.md): each has its own client, its own repair before its
// first discovery, its own discovery and its own updates, all in the one run under the one lock. An engine
// that does not answer fails only its own targets: the run goes on with the others, and the containers it
// had at its last discovery are reported with the engine's error.
import { errorMessage, readLabel, type Logger, type RunContext, type Target } from '../../../core/index.js';
import type Docker from 'dockerode';
import { EngineClient } from './client.js';
import { createDockerClient, normaliseApiVersion, type TunnelEndpoint } from './connect.js';
import { discoverContainers, type DiscoveryOptions, type ListedContainer } from '../discovery.js';
import type { EngineSpec } from './hosts.js';
import { isSocketProxyRefusal } from './transport.js';
import { isSshHostKeyError } from './ssh/errors.js';
import { ImageFactsCache } from '../image/facts-cache.js';
import type { ResolvedDockerOptions } from '../options.js';
import { repairAtStartup, type RepairReport } from '../replace/repair-start.js';
import { createRuntime, type DockerRuntime } from '../runtime.js';
import { engineUnreachable, isConnectFailure } from '../engine-unreachable.js';

/** The agents plugin's error for an agent without a tunnel (docs/errors.md). */
export const AGENT_OFFLINE = 'TW_ERR_AGENT_OFFLINE';

export interface Engine {
  /** The engine's name in records, filters and /readyz: its --host entry without the TLS settings. */
  readonly host: string;
  /** The host's rollout stage (docs/rollouts.md), carried by every target of the engine. */
  readonly stage: number;
  readonly runtime: DockerRuntime;
  /** Repairs what an interrupted replacement left on this engine; concurrent callers share one repair. */
  repair(): Promise<void>;
  /** True once a repair completed: until then every discovery tries it first. */
  readonly repaired: boolean;
  /** The repair under way, if any (settles, never rejects): a stop waits for it (docs/stopping.md). */
  repairInFlight(): Promise<void> | undefined;
  /** The targets of the last discovery that reached the engine (reported with its error while it is down). */
  lastKnown: readonly Target[];
  /** Image facts reused between discoveries while the engine reports image changes (not on Podman, docs/podman.md). */
  readonly imageFacts: ImageFactsCache;
}

export function createEngine(
  spec: EngineSpec,
  options: ResolvedDockerOptions,
  logger: Logger,
  ownId: () => string | undefined,
  onRepaired?: (report: RepairReport) => Promise<void>,
  tunnel?: TunnelEndpoint,
): Engine {
  // An agent's engine (docs/fleet.md) is reached through its tunnel; every other through its --host entry.
  const docker = tunnel
    ? new EngineClient(spec.host, { endpoint: tunnel, version: normaliseApiVersion(options.apiVersion) })
    : createDockerClient({ host: spec.host, tlsVerify: spec.tlsVerify, certPath: spec.certPath, apiVersion: options.apiVersion, ssh: options.ssh });
  const runtime = createRuntime(docker, options, logger, ownId);
  let repaired = false;
  let repairing: Promise<void> | undefined;
  const repairOnce = async () => {
    const report = await repairAtStartup(runtime);
    repaired = true;
    if (report.restored.length + report.removed.length + report.predecessors.length > 0) {
      logger.warn({ ...report }, 'repaired what an interrupted update left behind');
    }
    if (report.problems.length > 0) logger.error({ problems: report.problems }, 'could not repair everything');
    await onRepaired?.(report);
  };
  return {
    host: spec.host,
    stage: spec.stage,
    runtime,
    get repaired() {
      return repaired;
    },
    // A failed repair is tried again by the next discovery.
    repair: () => (repairing ??= repairOnce().finally(() => (repairing = undefined))),
    repairInFlight: () => repairing?.catch(() => undefined),
    lastKnown: [],
    imageFacts: new ImageFactsCache(docker, Date.now, (err) =>
      logger.warn({ err: err.message }, 'image facts are not kept between runs: every run inspects each image again'),
    ),
  };
}

/** A promise and the function that settles it (Promise.withResolvers, which Node 20 lacks). */
interface Deferred<T> {
  readonly promise: Promise<T>;
  readonly resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * How many engines a discovery lists and inspects at once (docs/performance.md#start-up): a hundred engines'
 * container lists parsed at once held the heap of all of them at its peak, which the process keeps as RSS.
 */
export const DISCOVERY_CONCURRENCY = 16;

/** A gate for `limit` holders at once: each waits for a free slot and releases it once. */
function slots(limit: number): () => Promise<() => void> {
  let free = limit;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  return async () => {
    if (free > 0) free--;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    let released = false;
    return () => {
      if (!released) release();
      released = true;
    };
  };
}

/** What a run found on its engines: the targets, and the engines that did not answer with why. */
export interface EnginesDiscovery {
  readonly targets: Target[];
  /** host → the error its targets are reported with. */
  readonly down: ReadonlyMap<string, string>;
}

export interface DiscoverAllOptions extends Omit<DiscoveryOptions, 'listed' | 'announce' | 'host' | 'stage' | 'imagesLastTime' | 'imageFacts' | 'namespaceModes'> {
  readonly ctx: RunContext;
  /** The run's scope once every engine has listed its containers (or failed): before anything is announced. */
  readonly scopeFound: (scope: string) => void;
  readonly scopeOption: string;
  readonly ownId: () => string | undefined;
  /** Told the own container's id when a discovery learned it (from the hostname). */
  readonly learnedOwnId: (id: string) => void;
}

/**
 * Discovers every engine at once. Targets are announced only once every engine has listed its containers,
 * since Tidewatch's own container (whose scope label is the run's scope when --scope is not set) may be on
 * any of them. One engine failing makes its last-known targets carry its error; all failing fails the run,
 * as one engine failing does when it is the only one.
 */
export async function discoverAll(engines: readonly Engine[], options: DiscoverAllOptions): Promise<EnginesDiscovery> {
  const { ctx } = options;
  const listed = engines.map(() => deferred<ListedContainer | undefined>());
  const allListed = Promise.all(listed.map((l) => l.promise)).then((owns) => {
    const own = owns.find((o) => o !== undefined);
    options.scopeFound(options.scopeOption || (own && readLabel(own.labels, 'scope')) || '');
  });
  const slot = slots(DISCOVERY_CONCURRENCY);
  const results = await Promise.allSettled(
    engines.map(async (engine, index) => {
      const own = listed[index] as Deferred<ListedContainer | undefined>;
      const release = await slot();
      try {
        if (!engine.repaired) await engine.repair();
        // Asked while the containers are listed (made once, at the first discovery: /version and /info); once
        // made, given as it is, so that the image list may go ahead of the container list (discovery.ts).
        const profile = engine.runtime.known() ?? engine.runtime.profile();
        const found = await discoverContainers(
          engine.runtime.docker,
          {
            ...options,
            host: engine.host,
            stage: engine.stage,
            imagesLastTime: new Set(engine.lastKnown.map((target) => target.imageId)).size,
            imageFacts: profile instanceof Promise ? profile.then((p) => (p.reportsImageEvents ? engine.imageFacts : undefined)) : profile.reportsImageEvents ? engine.imageFacts : undefined,
            profile,
            ...(ctx.kind === 'update' ? { namespaceModes: engine.runtime.namespaceModes } : {}),
            listed: own.resolve,
            announce: (batch) => void allListed.then(() => ctx.announce(batch)),
          },
          options.ownId(),
        );
        if (found.ownId) options.learnedOwnId(found.ownId);
        return found.targets;
      } finally {
        release();
        own.resolve(undefined);
      }
    }),
  );
  await allListed;
  const targets: Target[] = [];
  const down = new Map<string, string>();
  let firstError: unknown;
  results.forEach((result, index) => {
    const engine = engines[index] as Engine;
    if (result.status === 'fulfilled') {
      engine.lastKnown = result.value;
      targets.push(...engine.lastKnown);
      return;
    }
    firstError ??= result.reason;
    // A socket proxy's refusal names the call and the switch it needs (docs/security.md); the engine did answer.
    // An ssh:// host whose key the known_hosts file does not vouch for answered, and was not trusted (docs/ssh-hosts.md).
    const why = isSocketProxyRefusal(result.reason) ? 'refused a call' : isSshHostKeyError(result.reason) ? 'is not trusted' : 'did not answer';
    // An offline agent says so itself: `host agent://NAME offline since <time>` (docs/fleet.md).
    const offline = (result.reason as { code?: unknown }).code === AGENT_OFFLINE;
    down.set(engine.host, offline ? errorMessage(result.reason) : `engine ${engine.host} ${why}: ${errorMessage(result.reason)}`);
    // Listing containers shows what is there now: a down engine's are not listed, only reported by runs.
    if (ctx.kind !== 'list') targets.push(...engine.lastKnown);
  });
  // A cancelled run is not an engine failure; nor is every engine failing a partial answer.
  if (down.size > 0 && (ctx.signal.aborted || down.size === engines.length)) {
    // No engine could even be reached: a 503 that says which and what to check (docs/troubleshooting.md).
    const failures = results.map((r, i) => ({ host: (engines[i] as Engine).host, err: r.status === 'rejected' ? r.reason : undefined }));
    if (!ctx.signal.aborted && failures.every((f) => isConnectFailure(f.err))) throw engineUnreachable(failures);
    throw firstError;
  }
  return { targets, down };
}
