// Public surface of the configuration layer: the server imports from here only.
export { ConfigError } from './errors.js';
export { readBootstrap, resolveConfig, type Bootstrap, type ResolveInput, type ResolvedConfig, type ValueSource } from './resolve.js';
export { LOG_FORMATS, LOG_LEVELS, SERVICE_OPTIONS, servicePlugin, type LogFormat, type LogLevel } from './service-options.js';
export { buildTable, camelName, type OptionTable, type TableEntry, type TableSpec } from './table.js';
export { configView } from './view.js';
export { envNames } from '../../core/option.js';
export { builtinTable, OPTIONS, renderHelp } from './builtin-table.js';
