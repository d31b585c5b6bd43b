// `tidewatch check-config` (docs/configuration.md#checking-a-configuration): the flags, variables and config
// file read exactly as the service reads them, every enabled plugin's rules and deeper checks (`validate`:
// notification URLs, the template), the schedule parsed; then the resolved configuration printed as JSON,
// secrets `<redacted>` as in `/v1/config`. It starts nothing: no engine, registry, broker or listener is
// contacted, no file is written. Exit 0 when the service would start with this configuration, 2 with the one
// line the service would print otherwise.
import { optionLabel } from '../core/option.js';
import { configView, type ResolvedConfig } from './config/index.js';

export interface CheckConfigIo {
  readonly stdout: NodeJS.WritableStream;
}

/**
 * Runs the checks the service's start-up runs before contacting anything; throws a ConfigError. `schedule`
 * describes the parsed schedule (`every 24h0m0s`, or the cron expression).
 */
export async function checkConfig(io: CheckConfigIo, resolved: ResolvedConfig, schedule: string): Promise<number> {
  const warnings = [...resolved.warnings];
  for (const use of resolved.plugins) {
    const { plugin } = use;
    // resolveConfig gave every plugin a value for each of its options.
    const values = (use.options ?? {}) as object;
    if (plugin.enabled && !plugin.enabled(values)) continue;
    const specs = plugin.options ?? {};
    const label = (key: string) => (specs[key] ? optionLabel(specs[key]) : key);
    warnings.push(...(plugin.check?.(values, label) ?? []));
    warnings.push(...((await plugin.validate?.(values)) ?? []));
  }
  const report = {
    ok: true,
    config: configView(resolved),
    container_names: resolved.names,
    schedule,
    warnings,
  };
  io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return 0;
}
