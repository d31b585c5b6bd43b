// The effective configuration of a resolved command line as `/v1/config` would show it (the view itself is
// core's optionsView, which the HTTP API serves from the running core).
import { optionsView } from '../../core/index.js';
import type { ResolvedConfig } from './resolve.js';

export function configView(resolved: Pick<ResolvedConfig, 'plugins'>): Record<string, unknown> {
  return optionsView(
    resolved.plugins.map(({ plugin, options }) => ({
      plugin: plugin.name,
      specs: plugin.options ?? {},
      values: (options ?? {}) as Record<string, unknown>,
      enabled: true,
    })),
  );
}
