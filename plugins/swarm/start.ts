// The Swarm runtime's start-up, loaded only when the plugin is applied: discovery of services on the
// managers among the docker runtime's engines, their selection, the monitor-only and no-pull rules, and
// apply for service targets (docs/swarm.md).
import {
  REGISTRY_PATH,
  STAGES,
  isMonitorOnly,
  type RunContext,
  type Target,
  type TidewatchCore,
} from '../../core/index.js';
import { labelOrGlobal } from '../../contracts/shared/labels.js';
import { DOCKER_ENGINES, PULL_CREDENTIALS } from '../../contracts/index.js';
import { discoverServices } from './discovery.js';
import type { SwarmOptionValues } from './options.js';
import { firstUse } from '../../contracts/shared/first-use.js';
import { RUNTIME, pausedReason } from './target.js';

// A service's update and rollback load with the first one (docs/plugins.md#loading-code-at-first-use).
const updating = firstUse(async () => ({ ...(await import('./update.js')), ...(await import('./rollback.js')) }));

export function applySwarm(core: TidewatchCore, options: SwarmOptionValues): void {
  const engines = () => core.services.require(DOCKER_ENGINES).list();

  // Services are listed while the docker runtime lists its containers: the first tap (before every runtime)
  // only starts the listing, the second (after the docker runtime) adds what it found.
  const listings = new WeakMap<RunContext, Promise<Target[]>>();
  core.hooks.discover.tapPromise({ name: RUNTIME, stage: -1 }, async (targets, ctx) => {
    const listing = discoverServices(engines(), {
      signal: ctx.signal,
      logger: ctx.logger.child({ plugin: RUNTIME }),
      announce: (batch) => ctx.announce(batch),
    });
    // Awaited by the second tap; should an earlier runtime fail the discovery first, nobody awaits it.
    listing.catch(() => undefined);
    listings.set(ctx, listing);
    return targets;
  });
  core.hooks.discover.tapPromise(RUNTIME, async (targets, ctx) => {
    const listing = listings.get(ctx);
    listings.delete(ctx);
    return listing ? [...targets, ...(await listing)] : targets;
  });

  // The shared selection options, applied by the core as for containers (docs/swarm.md#which-services-are-watched),
  // read from the service's own labels (Spec.Labels); without --swarm a service must opt in with enable=true.
  core.applySelection(RUNTIME, options, { onlyEnabled: !options.swarm });

  // no-pull means no registry contact; a Swarm update makes every node pull, so a no-pull service is left
  // alone, reported unchecked (before the no-pull source, which compares a local image no service has).
  // Synchronous: it never waits, and every target of every run passes it.
  core.hooks.checkStaleness.tap({ name: RUNTIME, stage: STAGES.checkStaleness.local - 1 }, (target) => {
    if (target.runtime !== RUNTIME) return undefined;
    // A service Swarm paused mid-update runs (or fails to run) the new image: every check says so, by name,
    // until a person resumes or rolls it back (docs/swarm.md#paused-updates).
    const paused = pausedReason(target);
    if (paused) return { source: core.watchPath(target), stale: false, error: paused };
    if (core.watchPath(target) !== REGISTRY_PATH) return undefined;
    if (!labelOrGlobal(target.labels, 'no-pull', options.noPull, options.labelTakePrecedence)) return undefined;
    return { source: REGISTRY_PATH, stale: false, unchecked: true };
  });

  core.hooks.gate.tapPromise({ name: RUNTIME, stage: STAGES.gate.report }, async (target) =>
    target.runtime === RUNTIME && isMonitorOnly(target, options) ? { reason: 'monitor-only', by: RUNTIME, reportOnly: true } : undefined,
  );

  core.hooks.apply.tapPromise(RUNTIME, async (plan, ctx) => {
    const { target } = plan;
    if (target.runtime !== RUNTIME) return undefined;
    const engine = engines().find((e) => e.host === target.host);
    if (!engine) return { target, outcome: 'failed', rolledBack: false, error: `engine ${target.host ?? '?'} is no longer configured` };
    const timeout = AbortSignal.timeout(options.updateTimeoutMs);
    const signal = AbortSignal.any([ctx.signal, ctx.stopping, timeout]);
    const { rollbackService, updateService } = await updating();
    // Rollback on demand (docs/swarm.md#rollback-on-demand): Swarm's own rollback to the previous spec.
    const { targetImageId } = plan.staleness;
    if (targetImageId) return rollbackService({ engine, target, previousDigest: targetImageId, signal, pollIntervalMs: options.pollIntervalMs });
    return updateService({
      engine,
      target,
      latestDigest: plan.staleness.latestDigest,
      latestTag: plan.staleness.latestTag,
      // Looked up when used: without the registry plugin the nodes pull with the credentials the service has.
      authFor: async (ref) => core.services.get(PULL_CREDENTIALS)?.authFor(ref),
      signal,
      pollIntervalMs: options.pollIntervalMs,
    });
  });
}
