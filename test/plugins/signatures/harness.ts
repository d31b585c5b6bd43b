// Shared by the signature tests: a stale image on the real registry (v1 running, v2 under the tag) and a
// check run through a real core with the registry and signatures plugins (docs/signatures.md).
import { createTidewatch, type CheckResult, type Target, type TidewatchEvent } from '../../../core/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { signaturesPlugin, type SignaturesPluginOptions } from '../../../plugins/signatures/index.js';
import type { TestEnv } from '../../helpers/env.js';
import { pushImage, type PushedImage } from '../../helpers/images.js';
import { emptyConfigDir, stubRuntime, target } from '../registry/harness.js';

/** `${prefix}/${name}` with v1 running and v2 under the tag: v2's digest is the candidate. */
export async function staleAt(env: TestEnv, prefix: string, name: string, spec: { index?: boolean } = {}): Promise<{ target: Target; v2: PushedImage; repo: string }> {
  const repo = `${prefix}/${name}`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: `${repo} v1`, ...spec });
  const v2 = await pushImage({ registry: env.registry, repo, marker: `${repo} v2`, ...spec });
  return { target: target(name, `${env.registry}/${repo}:latest`, [`${env.registry}/${repo}@${v1.digest}`]), v2, repo };
}

export async function checkAll(
  targets: Target[],
  options: SignaturesPluginOptions,
): Promise<{ results: Map<string, CheckResult>; events: TidewatchEvent[]; close(): Promise<void> }> {
  const events: TidewatchEvent[] = [];
  const tw = await createTidewatch({
    plugins: [
      stubRuntime(() => targets),
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } },
      { plugin: signaturesPlugin, options },
      { name: 'recorder', apply: (core) => core.hooks.event.tap('recorder', (e) => void events.push(e)) },
    ],
  });
  const report = await tw.check();
  return { results: new Map(report.results.map((r) => [r.target.name, r])), events, close: () => tw.close() };
}

export function requests(events: TidewatchEvent[]): { method: string; code: string }[] {
  return events.flatMap((e) => (e.type === 'registry_request' ? [{ method: e.data.method, code: e.data.code }] : []));
}
