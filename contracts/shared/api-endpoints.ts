// Whether the HTTP API will serve an endpoint (docs/http-api.md), read by a plugin that contributes routes without
// importing the API: from the options the core applies plugins with (every plugin's options are resolved before
// the first is applied, core.options). A plugin whose code only its routes reach keeps that code unloaded when the
// API will not serve them (docs/plugins.md#loading-code-at-first-use).
import type { TidewatchCore } from '../../core/index.js';

/** Another plugin's option value by its flag, and whether that plugin is applied (that plugin is not imported). */
export function optionByFlag(core: Pick<TidewatchCore, 'options'>, flag: string): { value: unknown; enabled: boolean } | undefined {
  for (const applied of core.options) {
    for (const [key, spec] of Object.entries(applied.specs)) {
      if (spec.flag === flag) return { value: applied.values[key], enabled: applied.enabled };
    }
  }
  return undefined;
}

/**
 * True when the HTTP API is applied and `endpoint` is in its `--http-api-endpoints` (`all` is expanded when the
 * option is read; the deprecated `--http-api-update` and `--http-api-metrics` are not seen here); with no endpoint
 * named, when the API is applied at all (any endpoint, those two included).
 */
export function apiServes(core: Pick<TidewatchCore, 'options'>, endpoint?: string): boolean {
  const endpoints = optionByFlag(core, 'http-api-endpoints');
  if (endpoints === undefined || !endpoints.enabled || !Array.isArray(endpoints.value)) return false;
  return endpoint === undefined || endpoints.value.includes(endpoint);
}
