// Public surface of the configuration layer: the server imports from here only.

export { ConfigError } from './errors.js';
export { parseGoBool, isGoBool } from './go-bool.js';
export {
  formatGoDuration,
  parseCooldownDuration,
  parseEnvDuration,
  parseGoDuration,
} from '../../core/go-duration.js';
export { renderHelp } from './help.js';
export {
  defaultConfig,
  envName,
  envNames,
  IGNORED_WATCHTOWER_OPTIONS,
  optionByKey,
  optionByName,
  OPTIONS,
  watchtowerEnvName,
} from './options.js';
export { resolveConfig, type ResolveInput, type ResolvedConfig } from './resolve.js';
export { MAIN_TOKEN_ENDPOINTS } from './rules.js';
export { configView, REDACTED } from './view.js';
export {
  HTTP_API_ENDPOINTS,
  LOG_FORMATS,
  LOG_LEVELS,
  type AnyOptionSpec,
  type HttpApiEndpoint,
  type LogFormat,
  type LogLevel,
  type OptionGroup,
  type OptionKey,
  type OptionKind,
  type OptionName,
  type OptionSpec,
  type TidewatchConfig,
  type ValueSource,
} from './types.js';
