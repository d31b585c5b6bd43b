// Rules between the server's options, and between options of different plugins, checked once every
// option has its value. A plugin's rules about its own options are its `check` (run by the core). Violations
// are ConfigErrors (exit 2, one line); softer conflicts Watchtower only logged come back as warnings.
import { ConfigError } from '../../core/errors.js';
import { formatGoDuration } from '../../core/go-duration.js';
import { optionLabel } from '../../core/option.js';
import type { PluginUse } from '../../core/plugin.js';
import { quoteValue } from './errors.js';
import type { ResolvedConfig, ValueSource } from './resolve-values.js';
import type { OptionTable } from './table.js';

/** Throws a ConfigError for the first violated rule; returns warnings for the startup log. */
export function checkRules(
  cfg: ResolvedConfig['config'],
  sources: Readonly<Record<string, ValueSource>>,
  table: OptionTable,
  plugins: readonly PluginUse<object>[],
): string[] {
  const label = (flag: string): string => optionLabel(table.byFlag(flag)!.spec);
  const warnings: string[] = [];

  // Watchtower's rule: an interval other than the default together with a schedule is fatal.
  const defaultInterval = table.byFlag('interval')!.spec.default as number;
  if (cfg.schedule !== '' && cfg.interval !== defaultInterval) {
    throw new ConfigError(
      `${label('interval')} ${quoteValue(formatGoDuration(cfg.interval))} and ${label('schedule')} ${quoteValue(cfg.schedule)} cannot be used together: set only one of them`,
      'interval',
    );
  }

  // Options set for a plugin that is off change nothing: say so rather than ignore them silently.
  for (const { plugin, options } of plugins) {
    if (!plugin.enabled || plugin.enabled(options as object)) continue;
    const set = Object.values(plugin.options ?? {})
      .map((s) => s.flag)
      .filter((flag) => sources[flag] !== undefined && sources[flag] !== 'default' && table.byFlag(flag)!.owners.length === 1);
    if (set.length > 0) {
      warnings.push(`options of the ${plugin.name} plugin are set (${set.map((f) => `--${f}`).join(', ')}) but the plugin is off with these values`);
    }
  }
  if (cfg['monitorOnly'] === true && cfg['noPull'] === true) {
    warnings.push('--monitor-only with --no-pull only compares containers with local images: no registry is asked');
  }
  if (cfg.trace) warnings.push('--trace logs request details that may include credentials');
  return warnings;
}
