// What the Git plugin tests share: a real engine (createTidewatch) with a stub discovery of the
// given targets, the git plugin, and a stub registry source behind it that records what reaches it,
// so every test also sees the watch split.
import { createTidewatch } from '../../../core/index.js';
import { usePlugin } from '../../../core/plugin.js';
import type { CheckResult, Logger, Staleness, Target, Tidewatch, TidewatchPlugin } from '../../../core/index.js';
import { gitPlugin, type GitPluginOptions } from '../../../plugins/git/index.js';
import { fakeTarget } from '../../helpers/targets.js';
import { legacyView, type StalenessFields } from '../../helpers/staleness.js';
export { memoryLogger as capturingLogger, type LogLine } from '../../helpers/memory-logger.js';

export interface Harness {
  readonly tw: Tidewatch;
  /** Names of the targets the stub registry source was asked about, in the last runs. */
  readonly registryAsked: string[];
  /** Runs a check and returns the staleness per target name, its Git finding as the field `git` (legacyView). */
  check(): Promise<Map<string, StalenessFields>>;
}

export async function harness(
  targets: readonly Target[],
  options: GitPluginOptions = {},
  logger?: Logger,
): Promise<Harness> {
  const registryAsked: string[] = [];
  const discovery: TidewatchPlugin<object> = {
    name: 'stub-discovery',
    apply(core) {
      core.hooks.discover.tapPromise('stub-discovery', async (found) => [...found, ...targets]);
    },
  };
  const registry: TidewatchPlugin<object> = {
    name: 'stub-registry',
    apply(core) {
      core.hooks.checkStaleness.tapPromise('stub-registry', async (target) => {
        // The staleness protocol: a source answers only for targets on its own watch path.
        if (core.watchPath(target) !== 'registry') return undefined;
        registryAsked.push(target.name);
        return { source: 'registry', stale: false };
      });
    },
  };
  // The registry stub is listed first on purpose: the watch split, not the tap order, decides.
  const tw = await createTidewatch({
    plugins: [discovery, registry, usePlugin(gitPlugin, options)],
    ...(logger ? { logger } : {}),
  });
  return {
    tw,
    registryAsked,
    async check() {
      const report = await tw.check();
      return new Map(report.results.map((r: CheckResult) => [r.target.name, legacyView(r.staleness)]));
    },
  };
}

/** A Git-watched target: `git.repo` plus the optional ref, commit label and image revision. */
export function gitTarget(
  name: string,
  repo: string,
  extra: { ref?: string; commit?: string; revision?: string; labels?: Record<string, string> } = {},
): Target {
  return fakeTarget(name, {
    labels: {
      'tidewatch.git.repo': repo,
      ...(extra.ref ? { 'tidewatch.git.ref': extra.ref } : {}),
      ...(extra.commit ? { 'tidewatch.git.commit': extra.commit } : {}),
      ...extra.labels,
    },
    imageLabels: extra.revision ? { 'org.opencontainers.image.revision': extra.revision } : {},
  });
}

