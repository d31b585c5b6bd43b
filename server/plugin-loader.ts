// Loads plugins: built-ins by name, third-party plugins by module path (relative to the working
// directory) or package name. A module may export the plugin as `default`, as `plugin`, or export a
// factory `createPlugin()`; whatever it exports must look like a plugin, or startup fails naming it.
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TidewatchError } from '../core/index.js';
import type { TidewatchPlugin } from '../core/index.js';

export class PluginLoadError extends TidewatchError {
  constructor(specifier: string, why: string) {
    super('TW_ERR_PLUGIN_LOAD', `cannot load plugin "${specifier}" (--plugins): ${why}`, 500);
    this.name = 'PluginLoadError';
  }
}

function isPlugin(value: unknown): value is TidewatchPlugin<object> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { name?: unknown }).name === 'string' &&
    typeof (value as { apply?: unknown }).apply === 'function'
  );
}

function looksLikePath(specifier: string): boolean {
  return specifier.startsWith('.') || isAbsolute(specifier);
}

/** Resolves a plugin module's export to a plugin object. */
export function pluginFromModule(specifier: string, mod: Record<string, unknown>): TidewatchPlugin<object> {
  const candidates = [mod['default'], mod['plugin']];
  for (const candidate of candidates) {
    if (isPlugin(candidate)) return candidate;
    // A class whose instances have a `name` and an `apply` method on the prototype, as webpack plugins
    // are written: instantiated once, without arguments.
    if (typeof candidate === 'function' && typeof (candidate.prototype as { apply?: unknown })?.apply === 'function') {
      const instance: unknown = new (candidate as new () => unknown)();
      if (isPlugin(instance)) return instance;
    }
  }
  if (typeof mod['createPlugin'] === 'function') {
    const created: unknown = (mod['createPlugin'] as () => unknown)();
    if (isPlugin(created)) return created;
  }
  throw new PluginLoadError(specifier, 'the module exports no plugin (an object with a name and an apply function)');
}

export async function loadPlugin(specifier: string, cwd: string): Promise<TidewatchPlugin<object>> {
  const target = looksLikePath(specifier) ? pathToFileURL(resolve(cwd, specifier)).href : specifier;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(target)) as Record<string, unknown>;
  } catch (err) {
    throw new PluginLoadError(specifier, err instanceof Error ? err.message.split('\n')[0] ?? '' : String(err));
  }
  return pluginFromModule(specifier, mod);
}
