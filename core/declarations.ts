// The core's declaration surface: what a module that only declares options needs, and nothing of the engine
// (hooks, runs, the plan). Every name here is also exported by core/index.ts, the public surface, and is the
// same binding (test/core/declarations-entry.test.ts). It exists so a process that only reads options, the
// agent (`tidewatch agent`), can load a plugin's declarations without the whole core: an idle agent is
// measured in megabytes (docs/fleet.md#footprint). Plugins may import it beside core/index.ts
// (CONTRIBUTING.md#layout).
export { option } from './option.js';
export type { OptionValues } from './option.js';
export { isGoBool, splitCommaOrSpace } from './option-parsers.js';
export type { Parser } from './option-parsers.js';
export { SELECTION_OPTIONS, SHARED_OPTIONS } from './shared-options.js';
export { ConfigError, TidewatchError, errorMessage } from './errors.js';
