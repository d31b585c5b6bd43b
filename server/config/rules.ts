// Rules between options, checked once every option has its value. Violations are ConfigErrors (exit 2,
// one line); softer conflicts Watchtower only logged come back as warnings for the startup log.

import { accessSync, constants, statSync } from 'node:fs';

import { ConfigError, quoteValue } from './errors.js';
import { formatGoDuration } from '../../core/go-duration.js';
import { optionByName, optionLabel } from './options.js';
import type { HttpApiEndpoint, OptionName, TidewatchConfig, ValueSource } from './types.js';

/** Endpoints that need the main token (decisions §3); `events` needs its own; health and swagger need none. */
export const MAIN_TOKEN_ENDPOINTS: readonly HttpApiEndpoint[] = ['update', 'check', 'metrics', 'containers', 'config', 'history'];

const label = (name: OptionName): string => optionLabel(optionByName(name)!);

function checkReadableFile(name: OptionName, path: string): void {
  try {
    if (!statSync(path).isFile()) throw Object.assign(new Error('not a file'), { code: 'not a regular file' });
    accessSync(path, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`invalid value ${quoteValue(path)} for ${label(name)}: expected a readable PEM file (${code})`, name);
  }
}

/** Throws a ConfigError for the first violated rule; returns warnings for the startup log. */
export function checkRules(cfg: TidewatchConfig, sources: Record<OptionName, ValueSource>): string[] {
  const warnings: string[] = [];
  const defaultInterval = optionByName('interval')!.default as number;

  // Watchtower's rule: an interval other than the default together with a schedule is fatal.
  if (cfg.schedule !== '' && cfg.interval !== defaultInterval) {
    throw new ConfigError(
      `${label('interval')} ${quoteValue(formatGoDuration(cfg.interval))} and ${label('schedule')} ${quoteValue(cfg.schedule)} cannot be used together: set only one of them`,
      'interval',
    );
  }

  if (cfg.monitorOnly && cfg.rollingRestart) {
    throw new ConfigError(
      `${label('monitor-only')} and ${label('rolling-restart')} cannot be used together: monitor-only never restarts containers`,
      'rolling-restart',
    );
  }

  if ((cfg.httpApiTlsCert === '') !== (cfg.httpApiTlsKey === '')) {
    const [missing, given, value]: [OptionName, OptionName, string] =
      cfg.httpApiTlsCert === ''
        ? ['http-api-tls-cert', 'http-api-tls-key', cfg.httpApiTlsKey]
        : ['http-api-tls-key', 'http-api-tls-cert', cfg.httpApiTlsCert];
    throw new ConfigError(
      `${label(missing)} is missing: ${label(given)} is set to ${quoteValue(value)}, and HTTPS needs both a certificate and a key`,
      missing,
    );
  }
  if (cfg.httpApiTlsCert !== '') {
    checkReadableFile('http-api-tls-cert', cfg.httpApiTlsCert);
    checkReadableFile('http-api-tls-key', cfg.httpApiTlsKey);
  }

  const enabled = cfg.httpApiEndpoints;
  const needMain = MAIN_TOKEN_ENDPOINTS.filter((e) => enabled.includes(e));
  if (needMain.length > 0 && cfg.httpApiToken === '') {
    throw new ConfigError(
      `${label('http-api-token')} is required when these endpoints are enabled: ${needMain.join(', ')} (${label('http-api-endpoints')} is ${quoteValue(enabled.join(','))}); set the token or the path of a file holding it`,
      'http-api-token',
    );
  }
  if (enabled.includes('events') && cfg.httpApiEventsToken === '') {
    throw new ConfigError(
      `${label('http-api-events-token')} is required when the events endpoint is enabled (${label('http-api-endpoints')} is ${quoteValue(enabled.join(','))}); set the token or the path of a file holding it`,
      'http-api-events-token',
    );
  }

  if (enabled.length === 0) {
    const setApiOptions = (Object.keys(sources) as OptionName[]).filter(
      (n) => n.startsWith('http-api-') && n !== 'http-api-endpoints' && n !== 'http-api-periodic-polls' && sources[n] !== 'default',
    );
    if (setApiOptions.length > 0) {
      warnings.push(`HTTP API options are set (${setApiOptions.map((n) => `--${n}`).join(', ')}) but no endpoint is enabled: the HTTP API is off`);
    }
  }
  if (cfg.monitorOnly && cfg.noPull) {
    warnings.push('--monitor-only with --no-pull only compares containers with local images: no registry is asked');
  }
  if (cfg.stopTimeout > 0 && cfg.stopTimeout < 1000) {
    warnings.push(`--stop-timeout is ${formatGoDuration(cfg.stopTimeout)}: containers get under a second to stop before they are killed`);
  }
  if (cfg.trace) warnings.push('--trace logs request details that may include credentials');
  return warnings;
}
