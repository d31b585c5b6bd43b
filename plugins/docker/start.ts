// The Docker runtime plugin's start-up, loaded only when the plugin is applied (its index stays cheap to
// import for --help): connect to each engine, repair what an interrupted replacement left behind, then tap
// discovery, selection and updates. Several engines (docs/hosts.md) are one runtime each, in one run.
import {
  DOCKER_ENGINES,
  LOCAL_IMAGES,
  PULL_CREDENTIALS,
  REGISTRY_MIRRORS,
  STAGES,
  STATE_STORE,
  type LocalImages,
  type RegistryMirrors,
  type RunContext,
  type Target,
  type TidewatchCore,
} from '../../core/index.js';
import { pingEngine } from './engine/connect.js';
import { createEngine, discoverAll, type Engine } from './engine/engines.js';
import { engineSpecs } from './engine/hosts.js';
import { localImages } from './image/local-images.js';
import { auditRepair } from './replace/repair-audit.js';
import { repairAtStart } from './startup-repairs.js';
import type { DockerOptionValues, ResolvedDockerOptions } from './options.js';
import { detectOwnContainerId } from './self/container.js';
import { effectiveScope, inReplacement } from './selection.js';
import { RUNTIME as PLUGIN_NAME } from './target.js';
import { tapComposeNotes } from './compose/follow-up.js';
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
  };
}

/** The local image store of a target's engine (no-pull asks with the target's host; the first by default). */
function localImagesOf(engines: readonly Engine[]): LocalImages {
  const stores = new Map(engines.map((engine) => [engine.host, localImages(engine.runtime.docker)]));
  const first = stores.get((engines[0] as Engine).host) as LocalImages;
  return {
    inspectImage: (reference, signal, host) => (stores.get(host ?? '') ?? first).inspectImage(reference, signal),
  };
}

/** The registry mirrors of a target's engine (the registry source asks them first, docs/registry-mirrors.md). */
function registryMirrorsOf(engines: readonly Engine[]): RegistryMirrors {
  const byHost = new Map(engines.map((engine) => [engine.host, engine]));
  const first = engines[0] as Engine;
  return { mirrorsFor: (host) => (byHost.get(host ?? '') ?? first).runtime.registryMirrors() };
}

/** One engine: its readiness check is the plugin's; several: each is named by its host (docs/hosts.md). */
function readinessName(engine: Engine, engines: readonly Engine[]): string {
  return engines.length === 1 ? PLUGIN_NAME : `${PLUGIN_NAME} ${engine.host}`;
}

export async function applyDocker(core: TidewatchCore, declared: DockerOptionValues): Promise<void> {
  const options = resolveOptions(core, declared);
  const logger = core.logger.child({ plugin: PLUGIN_NAME });
  const specs = engineSpecs(declared.host, { tlsVerify: declared.tlsVerify, certPath: options.certPath });
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
  });
  for (const engine of engines) {
    core.health.addReadinessCheck(readinessName(engine, engines), (signal) => pingEngine(engine.runtime.docker, signal));
  }
  core.services.provide(LOCAL_IMAGES, localImagesOf(engines));
  core.services.provide(REGISTRY_MIRRORS, registryMirrorsOf(engines));
  core.services.provide(DOCKER_ENGINES, { list: () => engines.map((engine) => engine.runtime.docker) });

  // The scope of each run, read from the lists before any target is announced: selection then sees the
  // targets an image at a time, the own container maybe not among them (docs/performance.md).
  const scopes = new WeakMap<RunContext, string>();
  // The engines that did not answer in a run, with the error their targets are reported with.
  const down = new WeakMap<RunContext, ReadonlyMap<string, string>>();
  core.hooks.discover.tapPromise(PLUGIN_NAME, async (targets, ctx) => {
    const found = await discoverAll(engines, {
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
    return error === undefined ? undefined : { source: core.watchPath(target), stale: false, error };
  });

  // A pending tag update of a Compose-managed container says what Compose will do to it (docs/compose.md).
  tapComposeNotes(core, options.composeRewrite);
  for (const engine of engines) tapUpdates(core, engine.runtime, engine.host);

  // Bounded, and a slow engine delays nobody's start (startup-repairs.ts).
  await repairAtStart(engines);
}
