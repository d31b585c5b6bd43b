// The service's configuration: every loaded plugin's options (the built-in plugins and the third-party ones
// given by --plugins or the config file) resolved by the rules of resolve-values.ts (docs/interface.md §2).
import type { TidewatchPlugin } from '../../core/plugin.js';
import { builtinPlugins } from '../builtins.js';
import { resolvePlugins, type ResolveInput, type ResolvedConfig } from './resolve-values.js';
import { servicePlugin } from './service-options.js';

export { readBootstrap, type Bootstrap, type ResolveInput, type ResolvedConfig, type ValueSource } from './resolve-values.js';

/** Resolves flags, variables, the config file and defaults for every plugin's options. */
export function resolveConfig(input: ResolveInput): ResolvedConfig {
  const thirdParty = input.thirdParty ?? new Map<string, TidewatchPlugin<object>>();
  return resolvePlugins([servicePlugin, ...builtinPlugins([...thirdParty.values()])], input);
}
