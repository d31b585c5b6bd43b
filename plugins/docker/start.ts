// The Docker runtime plugin's start-up, loaded only when the plugin is applied (its index stays cheap to
// import for --help): connect to each engine, repair what an interrupted replacement left behind, then tap
// discovery, selection and updates. Several engines (docs/hosts.md) are one runtime each, in one run.
import { STAGES, type RunContext, type Target, type TidewatchCore } from '../../core/index.js';
import { DOCKER_ENGINES, LOCAL_IMAGES, REGISTRY_MIRRORS, type LocalImages, type RegistryMirrors } from './contracts.js';
import { AGENT_HOSTS, SNAPSHOTS, STATE_STORE, PULL_CREDENTIALS, type AgentHosts } from '../../contracts/index.js';
import { engineAnswers } from './engine/connect.js';
import { createEngine, discoverAll, type Engine } from './engine/engines.js';
import { engineSpecs } from './engine/hosts.js';
import { EngineSet, followAgents } from './engine/agent-engines.js';
import { callGroups } from './engine/socket-proxy.js';
import { isSshHost } from './engine/ssh/address.js';
import { localImages } from './image/local-images.js';
import { auditRepair } from './replace/repair-audit.js';
import { repairAtStart, waitForRepairs } from './startup-repairs.js';
import type { DockerOptionValues, ResolvedDockerOptions } from './options.js';
import { detectOwnContainerId } from './self/container.js';
import { effectiveScope, inReplacement } from './selection.js';
import { RUNTIME as PLUGIN_NAME } from './target.js';
import { tapComposeNotes } from './compose/note-tap.js';
import { tapUpdates } from './update-taps.js';

/** What the plugin's parts use: the declared values, pull credentials from the registry plugin's service. */
function resolveOptions(core: TidewatchCore, options: DockerOptionValues): ResolvedDockerOptions {
  return {
    ...options,
    selfContainerId: options.selfContainerId || undefined,
    apiVersion: options.apiVersion || undefined,
    certPath: options.certPath || undefined,
    // Watchtower skips self-update in run-once mode: the process is about to exit anyway.
    selfUpdate: options.selfUpdate && core.mode !== 'once',
    // Looked up at pull time: without the service (no registry plugin loaded) pulls are anonymous.
    authFor: async (imageRef) => core.services.get(PULL_CREDENTIALS)?.authFor(imageRef),
    // The state plugin keeps volume snapshots (docs/snapshots.md); without it none are taken.
    snapshots: () => core.services.get(SNAPSHOTS),
  };
}

/** The local image store of a target's engine (no-pull asks with the target's host; the first by default). */
function localImagesOf(set: EngineSet): LocalImages {
  const stores = new WeakMap<Engine, LocalImages>();
  const of = (engine: Engine) => stores.get(engine) ?? stores.set(engine, localImages(engine.runtime.docker)).get(engine) as LocalImages;
  return {
    inspectImage: (reference, signal, host) => {
      const engines = set.all();
      return of(engines.find((e) => e.host === host) ?? (engines[0] as Engine)).inspectImage(reference, signal);
    },
  };
}

/** The registry mirrors of a target's engine (the registry source asks them first, docs/registry-mirrors.md). */
function registryMirrorsOf(set: EngineSet): RegistryMirrors {
  return {
    mirrorsFor: (host) => {
      const engines = set.all();
      return (engines.find((e) => e.host === host) ?? (engines[0] as Engine)).runtime.registryMirrors();
    },
  };
}

/** One engine: its readiness check is the plugin's; several: each is named by its host (docs/hosts.md). */
function readinessName(engine: Engine, engines: readonly Engine[]): string {
  return engines.length === 1 ? PLUGIN_NAME : `${PLUGIN_NAME} ${engine.host}`;
}

/** How many containers each online agent's engine showed in this discovery (`GET /v1/agents`). */
function reportContainers(agents: AgentHosts, set: EngineSet, down: ReadonlyMap<string, string>): void {
  for (const agent of agents.list()) {
    const engine = set.agent(agent.name);
    if (engine && !down.has(engine.host)) agents.report(agent.name, { containers: engine.lastKnown.length });
  }
}

export async function applyDocker(core: TidewatchCore, declared: DockerOptionValues): Promise<void> {
  const specs = engineSpecs(declared.host, { tlsVerify: declared.tlsVerify, certPath: declared.certPath || undefined });
  // ssh:// engines (docs/ssh-hosts.md): their key is read, and ssh2 loaded, only when one is configured.
  const ssh = specs.some((spec) => isSshHost(spec.host)) ? await import('./engine/ssh/startup.js') : undefined;
  const options = { ...resolveOptions(core, declared), ssh: await ssh?.sshSettingsFor(specs.map((spec) => spec.host), declared) };
  const logger = core.logger.child({ plugin: PLUGIN_NAME });
  // Detected once: a process does not move between containers. Discovery may still learn it from the
  // hostname when the files say nothing.
  let ownId = options.selfContainerId ?? (await detectOwnContainerId());
  const engines = specs.map((spec) =>
    createEngine(spec, options, specs.length === 1 ? logger : logger.child({ host: spec.host }), () => ownId, (report) =>
      auditRepair(core.services.get(STATE_STORE), report, spec.host, logger),
    ),
  );

  core.onClose(() => {
    for (const engine of engines) engine.imageFacts.close();
    // An SSH connection is ended rather than left to the process's exit.
    for (const engine of engines) if (isSshHost(engine.host)) engine.runtime.docker.close();
  });
  // Registered after the closer above, so run before it: a stop waits for a repair still under way (one that
  // outlasted start-up's bounded wait) before the engines' clients close, so what an interrupted replacement
  // left is put back rather than abandoned halfway (docs/stopping.md).
  core.onClose(() => waitForRepairs(engines, logger));
  // A host key the known_hosts file does not vouch for stops the start (exit 2), before any repair or run.
  await ssh?.checkHostKeysAtStart(engines.map((engine) => ({ host: engine.host, docker: engine.runtime.docker })));
  for (const engine of engines) {
    core.health.addReadinessCheck(readinessName(engine, engines), (signal) => engineAnswers(engine.runtime.docker, signal));
  }
  // Agents that dial in are engines too (docs/fleet.md): one per agent, made and dropped as agents come and go.
  const set = new EngineSet(engines);
  const agents = core.services.get(AGENT_HOSTS);
  if (agents) {
    agents.allowCalls(callGroups(options));
    const unfollow = followAgents({
      agents,
      set,
      logger,
      make: (agent) =>
        createEngine({ host: agent.host, tlsVerify: false, certPath: undefined, stage: agent.stage }, options, logger.child({ host: agent.host }), () => ownId,
          (report) => auditRepair(core.services.get(STATE_STORE), report, agent.host, logger),
          { kind: 'tunnel', connect: () => agents.connect(agent.name) }),
      made: (engine) => {
        tapUpdates(core, engine.runtime, engine.host);
        core.onClose(() => engine.imageFacts.close());
      },
    });
    core.onClose(unfollow);
  }
  core.services.provide(LOCAL_IMAGES, localImagesOf(set));
  core.services.provide(REGISTRY_MIRRORS, registryMirrorsOf(set));
  core.services.provide(DOCKER_ENGINES, { list: () => set.all().map((engine) => engine.runtime.docker) });

  // The scope of each run, read from the lists before any target is announced: selection then sees the
  // targets an image at a time, the own container maybe not among them (docs/performance.md).
  const scopes = new WeakMap<RunContext, string>();
  // The engines that did not answer in a run, with the error their targets are reported with.
  const down = new WeakMap<RunContext, ReadonlyMap<string, string>>();
  core.hooks.discover.tapPromise(PLUGIN_NAME, async (targets, ctx) => {
    const found = await discoverAll(set.all(), {
      ...options,
      ctx,
      signal: ctx.signal,
      scopeOption: options.scope,
      scopeFound: (scope) => scopes.set(ctx, scope),
      ownId: () => ownId,
      learnedOwnId: (id) => (ownId ??= id),
    });
    for (const [host, error] of found.down) logger.error({ host, err: error }, 'engine did not answer: its containers are reported failed');
    if (found.down.size > 0) down.set(ctx, found.down);
    if (agents) reportContainers(agents, set, found.down);
    return [...targets, ...found.targets];
  });

  core.applySelection(PLUGIN_NAME, options, {
    scope: (targets, ctx) => scopes.get(ctx) ?? effectiveScope(options.scope, targets, ownId),
    exclude: inReplacement,
  });

  // Tapped before the runtime's own taps of the first stage: a down engine's targets are reported with its
  // error, and none of the runtime's hooks (pre-check commands, the running-at-start record) touch them.
  // A synchronous tap: it never waits, and every target of every run passes it.
  core.hooks.checkStaleness.tap({ name: PLUGIN_NAME, stage: STAGES.checkStaleness.observe }, (target, ctx) => {
    if (target.runtime !== PLUGIN_NAME) return undefined;
    const error = down.get(ctx)?.get(target.host ?? '');
    if (error === undefined) return undefined;
    // An offline agent's containers keep their error and are skipped by update runs (docs/fleet.md#offline-is-visible).
    const offline = error.startsWith(`host ${target.host ?? ''} offline since `);
    return { source: core.watchPath(target), stale: false, error, ...(offline ? { notApplicable: 'host offline' } : {}) };
  });

  // A pending tag update of a Compose-managed container says what Compose will do to it (docs/compose.md).
  tapComposeNotes(core, options.composeRewrite);
  for (const engine of engines) tapUpdates(core, engine.runtime, engine.host);

  // Bounded, and a slow engine delays nobody's start (startup-repairs.ts): waited for, so that what an interrupted
  // replacement left is put back before the service answers (docs/stopping.md), but at most 2 s for any one engine.
  await repairAtStart(engines);
}
