// Runs the registry plugin inside a real core, with a stub runtime that "discovers" given targets.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTidewatch,
  type Target,
  type Tidewatch,
  type TidewatchEvent,
  type TidewatchPlugin,
} from '../../../core/index.js';
import type { CheckReport } from '../../../core/types.js';
import { registryPlugin, type RegistryPluginOptions } from '../../../plugins/registry/index.js';
import { fakeTarget } from '../../helpers/targets.js';

export function stubRuntime(targets: () => Target[]): TidewatchPlugin<object> {
  return {
    name: 'stub-runtime',
    apply(core) {
      core.hooks.discover.tapPromise('stub-runtime', async (found) => [...found, ...targets()]);
    },
  };
}

export function target(name: string, image: string, repoDigests: string[] = []): Target {
  return fakeTarget(name, { runtime: 'stub', image, imageId: `sha256:${'0'.repeat(64)}`, repoDigests });
}

/** An empty config dir, so tests never read the machine's ~/.docker. */
export function emptyConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'tidewatch-dockercfg-'));
}

export interface Harness {
  tw: Tidewatch;
  events: TidewatchEvent[];
  check(): Promise<CheckReport>;
  byName(report: CheckReport, name: string): CheckReport['results'][number];
}

export async function harness(targets: Target[] | (() => Target[]), options: RegistryPluginOptions = {}): Promise<Harness> {
  const list = typeof targets === 'function' ? targets : () => targets;
  const events: TidewatchEvent[] = [];
  const tw = await createTidewatch({
    plugins: [
      stubRuntime(list),
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir(), ...options } },
      {
        name: 'event-recorder',
        apply(core) {
          core.hooks.event.tap('event-recorder', (e) => void events.push(e));
        },
      },
    ],
  });
  return {
    tw,
    events,
    check: () => tw.check(),
    byName(report, name) {
      const found = report.results.find((r) => r.target.name === name);
      if (!found) throw new Error(`no result for ${name}`);
      return found;
    },
  };
}
