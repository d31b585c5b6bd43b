// The option table: one entry per option Tidewatch implements. Flags, variables, the config file, the
// WATCHTOWER_* aliases, `--help` and the `/v1/config` view are all derived from it, so adding an option here
// is the whole job. Watchtower options that are accepted but not acted on live in compat-options.ts.
//
// Variable names: `TIDEWATCH_` + (env ?? NAME_IN_UPPER_SNAKE); alias `WATCHTOWER_` + (watchtowerEnv ?? env).
// Some options also read a conventional un-prefixed variable (`externalEnv`, e.g. DOCKER_HOST) last.

import { COMPAT_OPTIONS, IGNORED_WATCHTOWER_OPTIONS } from './compat-options.js';
import {
  durationParser,
  enumParser,
  integerParser,
  listParser,
  parseBoolean,
  parseCooldown,
  parseCorsOrigins,
  parseEndpoints,
  parseHeaderName,
  parseListenHost,
  parsePath,
  parsePluginList,
  parseSchedule,
  parseString,
  parseTrustedProxies,
  splitCommaOrSpace,
  stripSlash,
} from './parsers.js';
import {
  LOG_FORMATS,
  LOG_LEVELS,
  type AnyOptionSpec,
  type CoreOptionValues,
  type OptionKey,
  type OptionTable,
  type TidewatchConfig,
} from './types.js';

export { IGNORED_WATCHTOWER_OPTIONS };

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const bool = { kind: 'boolean', default: false, parse: parseBoolean } as const;

const CORE_OPTIONS: OptionTable<CoreOptionValues> = {
  // Scheduling and run mode
  interval: {
    name: 'interval', short: 'i', watchtowerEnv: 'POLL_INTERVAL', kind: 'duration', valueName: '<duration>',
    default: 24 * HOUR, parse: durationParser({ positive: true }),
    description: 'Time between update runs (Go duration; digits alone are seconds). Cannot be combined with --schedule.',
    group: 'Scheduling and run mode',
  },
  schedule: {
    name: 'schedule', short: 's', kind: 'string', valueName: '<cron>', default: '', parse: parseSchedule,
    description: 'Cron expression (6 fields with seconds, or 5; descriptors such as @daily) instead of --interval.',
    group: 'Scheduling and run mode',
  },
  runOnce: {
    name: 'run-once', short: 'R', ...bool,
    description: 'Run one update pass, then exit.', group: 'Scheduling and run mode',
  },
  updateOnStart: {
    name: 'update-on-start', ...bool,
    description: 'Run one update pass at startup, then follow the schedule.', group: 'Scheduling and run mode',
  },
  httpApiPeriodicPolls: {
    name: 'http-api-periodic-polls', ...bool,
    description: 'Keep scheduled runs going while the HTTP update endpoint is enabled.',
    group: 'Scheduling and run mode',
  },
  healthCheck: {
    name: 'health-check', env: null, ...bool,
    description: 'Container HEALTHCHECK helper: exit at once instead of starting the service.',
    group: 'Scheduling and run mode',
  },
  noStartupMessage: {
    name: 'no-startup-message', ...bool,
    description: 'Do not log the startup summary.', group: 'Scheduling and run mode',
  },

  // Container selection (positional arguments are container names)
  labelEnable: {
    name: 'label-enable', short: 'e', ...bool,
    description: 'Watch only containers labelled tidewatch.enable=true.', group: 'Container selection',
  },
  disableContainers: {
    name: 'disable-containers', short: 'x', kind: 'list', valueName: '<names>', default: [],
    parse: listParser(splitCommaOrSpace, stripSlash),
    description: 'Container names (or anchored regular expressions) to leave alone, comma or space separated.',
    group: 'Container selection',
  },
  scope: {
    name: 'scope', kind: 'string', valueName: '<scope>', default: '', parse: parseString,
    description: 'Watch only containers whose tidewatch.scope label equals this; unset or "none": containers without a scope.',
    group: 'Container selection',
  },
  includeStopped: {
    name: 'include-stopped', short: 'S', ...bool,
    description: 'Also watch created and exited containers.', group: 'Container selection',
  },
  includeRestarting: {
    name: 'include-restarting', ...bool,
    description: 'Also watch restarting containers.', group: 'Container selection',
  },
  reviveStopped: {
    name: 'revive-stopped', ...bool,
    description: 'Start updated containers that were not running before.', group: 'Container selection',
  },

  // Update behaviour
  cleanup: {
    name: 'cleanup', short: 'c', ...bool,
    description: 'Remove the old image after a successful update.', group: 'Update behaviour',
  },
  removeVolumes: {
    name: 'remove-volumes', ...bool,
    description: "Remove the old container's anonymous volumes.", group: 'Update behaviour',
  },
  noPull: {
    name: 'no-pull', ...bool,
    description: 'Never contact registries; compare with the local image only.', group: 'Update behaviour',
  },
  noRestart: {
    name: 'no-restart', ...bool,
    description: 'Recreate updated containers but do not start them.', group: 'Update behaviour',
  },
  monitorOnly: {
    name: 'monitor-only', short: 'm', ...bool,
    description: 'Report available updates, never apply them.', group: 'Update behaviour',
  },
  rollingRestart: {
    name: 'rolling-restart', ...bool,
    description: 'Replace containers one at a time. Cannot be combined with --monitor-only.', group: 'Update behaviour',
  },
  stopTimeout: {
    name: 'stop-timeout', short: 't', watchtowerEnv: 'TIMEOUT', kind: 'duration', valueName: '<duration>',
    default: 30_000, parse: durationParser(),
    description: "Grace period before a stopping container is killed (a container's own StopTimeout wins).",
    group: 'Update behaviour',
  },
  labelTakePrecedence: {
    name: 'label-take-precedence', ...bool,
    description: 'Let the monitor-only and no-pull labels override the global options.', group: 'Update behaviour',
  },
  useComposeDependsOn: {
    name: 'use-compose-depends-on', kind: 'boolean', default: true, parse: parseBoolean,
    description: 'Order updates and restarts by the com.docker.compose.depends_on label.', group: 'Update behaviour',
  },
  cooldownDelay: {
    name: 'cooldown-delay', kind: 'cooldown', valueName: '<delay>', default: 0, parse: parseCooldown,
    description: 'Minimum image age before an update is applied (units s m h d w M, e.g. 3d12h); 0 is off.',
    group: 'Update behaviour',
  },
  enableLifecycleHooks: {
    name: 'enable-lifecycle-hooks', watchtowerEnv: 'LIFECYCLE_HOOKS', ...bool,
    description: 'Run the lifecycle hook commands given in container labels.', group: 'Update behaviour',
  },
  lifecycleUid: {
    name: 'lifecycle-uid', kind: 'integer', valueName: '<uid>', default: 0, parse: integerParser(0),
    description: "User id lifecycle hooks run as (0: the container's default user).", group: 'Update behaviour',
  },
  lifecycleGid: {
    name: 'lifecycle-gid', kind: 'integer', valueName: '<gid>', default: 0, parse: integerParser(0),
    description: 'Group id lifecycle hooks run as.', group: 'Update behaviour',
  },
  // Tidewatch's own. 10s catches the common failure (a new container that crashes on start or never becomes
  // healthy) while keeping a run over many containers short; 0 removes the old container as soon as the new
  // one has started, as Watchtower did.
  updateGracePeriod: {
    name: 'update-grace-period', kind: 'duration', valueName: '<duration>', default: 10_000, parse: durationParser(),
    description:
      'How long a new container must stay running (and healthy, when it has a health check) before the old one is removed; otherwise it is rolled back. 0: no wait.',
    group: 'Update behaviour',
  },

  // Registry and Git (registry credentials come from DOCKER_CONFIG's config.json or raw REPO_USER/REPO_PASS)
  registryTlsSkip: {
    name: 'registry-tls-skip', ...bool,
    description: 'Talk to registries over plain HTTP or without verifying TLS certificates.', group: 'Registry and Git',
  },
  registryConcurrency: {
    name: 'registry-concurrency', kind: 'integer', valueName: '<n>', default: 20, parse: integerParser(1),
    description: 'Registry requests in flight at once.', group: 'Registry and Git',
  },
  gitToken: {
    name: 'git-token', kind: 'string', valueName: '<token|file>', default: '', parse: parseString, secret: true,
    description: 'Token for Git hosts (GitHub API, smart HTTP); a path to a file holding it works too.',
    group: 'Registry and Git',
  },

  // Docker connection: TIDEWATCH_<X> first, then Docker's own variable (DOCKER_HOST...) as Watchtower read it.
  host: {
    name: 'host', short: 'H', watchtowerEnv: null, externalEnv: 'DOCKER_HOST', kind: 'string', valueName: '<url>',
    default: 'unix:///var/run/docker.sock', parse: parseString,
    description: 'Docker daemon socket (unix://, tcp://, npipe://).', group: 'Docker connection',
  },
  tlsverify: {
    name: 'tlsverify', short: 'v', watchtowerEnv: null, externalEnv: 'DOCKER_TLS_VERIFY', ...bool,
    description: 'Use TLS and verify the daemon (certificates from --cert-path).', group: 'Docker connection',
  },
  apiVersion: {
    name: 'api-version', short: 'a', watchtowerEnv: null, externalEnv: 'DOCKER_API_VERSION', kind: 'string',
    valueName: '<version>', default: '', parse: parseString,
    description: 'Docker API version to use (empty: negotiate).', group: 'Docker connection',
  },
  certPath: {
    name: 'cert-path', watchtowerEnv: null, externalEnv: 'DOCKER_CERT_PATH', kind: 'path', valueName: '<dir>',
    default: '', parse: parsePath,
    description: 'Directory holding ca.pem, cert.pem and key.pem for --tlsverify.', group: 'Docker connection',
  },

  // HTTP API (decisions §3)
  httpApiEndpoints: {
    name: 'http-api-endpoints', kind: 'endpoints', valueName: '<names>', default: [], parse: parseEndpoints, join: ',',
    description:
      'Endpoints to enable: update check events swagger metrics containers config history health, or all. Empty: API off.',
    group: 'HTTP API',
  },
  httpApiToken: {
    name: 'http-api-token', kind: 'string', valueName: '<token|file>', default: '', parse: parseString, secret: true,
    description: 'Main bearer token (or a file holding it); required by update check metrics containers config history.',
    group: 'HTTP API',
  },
  httpApiEventsToken: {
    name: 'http-api-events-token', kind: 'string', valueName: '<token|file>', default: '', parse: parseString,
    secret: true, description: 'Token for /v1/events (or a file holding it); required by events.', group: 'HTTP API',
  },
  httpApiHost: {
    name: 'http-api-host', kind: 'string', valueName: '<ip>', default: '0.0.0.0', parse: parseListenHost,
    description: 'Address the API listens on (an IPv4 or IPv6 address).', group: 'HTTP API',
  },
  httpApiPort: {
    name: 'http-api-port', kind: 'integer', valueName: '<port>', default: 8080, parse: integerParser(0, 65535),
    description: 'Port the API listens on.', group: 'HTTP API',
  },
  httpApiRateLimit: {
    name: 'http-api-rate-limit', kind: 'integer', valueName: '<n>', default: 60, parse: integerParser(0),
    description: 'Requests per minute per client IP; 0 turns the limit off.', group: 'HTTP API',
  },
  httpApiTlsCert: {
    name: 'http-api-tls-cert', kind: 'path', valueName: '<file>', default: '', parse: parsePath,
    description: 'TLS certificate (PEM); needs --http-api-tls-key.', group: 'HTTP API',
  },
  httpApiTlsKey: {
    name: 'http-api-tls-key', kind: 'path', valueName: '<file>', default: '', parse: parsePath,
    description: 'TLS private key (PEM); needs --http-api-tls-cert.', group: 'HTTP API',
  },
  httpApiTrustedProxies: {
    name: 'http-api-trusted-proxies', kind: 'list', valueName: '<ips>', default: [], parse: parseTrustedProxies,
    description: 'Proxy IPs or CIDRs whose client-IP header is believed.', group: 'HTTP API',
  },
  httpApiProxyHeader: {
    name: 'http-api-proxy-header', kind: 'string', valueName: '<header>', default: 'X-Forwarded-For',
    parse: parseHeaderName, description: 'Header carrying the client IP behind a trusted proxy.', group: 'HTTP API',
  },
  httpApiCorsOrigins: {
    name: 'http-api-cors-origins', kind: 'list', valueName: '<origins>', default: [], parse: parseCorsOrigins,
    description: 'Origins allowed cross-origin access (* for any).', group: 'HTTP API',
  },
  httpApiCheckTimeout: {
    name: 'http-api-check-timeout', kind: 'duration', valueName: '<duration>', default: 5 * MINUTE,
    parse: durationParser({ zeroMeans: 5 * MINUTE }),
    description: 'Time limit of /v1/check and ceiling of its ?timeout= (0: the default).', group: 'HTTP API',
  },
  httpApiUpdateTimeout: {
    name: 'http-api-update-timeout', kind: 'duration', valueName: '<duration>', default: 10 * MINUTE,
    parse: durationParser({ zeroMeans: 10 * MINUTE }),
    description: 'Time limit of /v1/update and ceiling of its ?timeout= (0: the default).', group: 'HTTP API',
  },
  httpApiEventsMaxSubscribers: {
    name: 'http-api-events-max-subscribers', kind: 'integer', valueName: '<n>', default: 1000, parse: integerParser(1),
    description: 'Concurrent /v1/events subscribers; more get 503.', group: 'HTTP API',
  },
  httpApiUpdate: {
    name: 'http-api-update', ...bool,
    description: 'Deprecated: same as adding update to --http-api-endpoints.', group: 'HTTP API',
  },
  httpApiMetrics: {
    name: 'http-api-metrics', ...bool,
    description: 'Deprecated: same as adding metrics to --http-api-endpoints.', group: 'HTTP API',
  },
  httpApiContainers: {
    name: 'http-api-containers', ...bool,
    description: 'Deprecated: same as adding containers to --http-api-endpoints.', group: 'HTTP API',
  },

  // Logging
  logLevel: {
    name: 'log-level', kind: 'enum', valueName: '<level>', default: 'info',
    parse: enumParser(LOG_LEVELS, { panic: 'fatal', warning: 'warn' }),
    description: 'trace, debug, info, warn, error or fatal (Watchtower\'s panic means fatal).', group: 'Logging',
  },
  logFormat: {
    name: 'log-format', short: 'l', kind: 'enum', valueName: '<format>', default: 'auto', parse: enumParser(LOG_FORMATS),
    description: 'auto, json, pretty or logfmt.', group: 'Logging',
  },
  debug: {
    name: 'debug', short: 'd', ...bool, description: 'Shortcut for --log-level debug.', group: 'Logging',
  },
  trace: {
    name: 'trace', ...bool, description: 'Shortcut for --log-level trace.', group: 'Logging',
  },
  noColor: {
    name: 'no-color', watchtowerEnv: null, externalEnv: 'NO_COLOR', externalEnvPresence: true, ...bool,
    description: 'No ANSI colours in log output (NO_COLOR set to anything also does it).', group: 'Logging',
  },

  // Plugins and configuration
  plugins: {
    name: 'plugins', kind: 'list', valueName: '<modules>', default: [], parse: parsePluginList,
    description: 'Extra plugins to load: module paths or package names, comma or space separated.',
    group: 'Plugins and configuration',
  },
  config: {
    name: 'config', watchtowerEnv: null, kind: 'path', valueName: '<file>', default: '', parse: parsePath,
    description: 'YAML or JSON file of options (kebab-case or camelCase keys); flags and variables win over it.',
    group: 'Plugins and configuration',
  },
};

const withKeys = (table: Readonly<Record<string, object>>): AnyOptionSpec[] =>
  Object.entries(table).map(([key, spec]) => ({ ...spec, key }) as AnyOptionSpec);

/** Every option, in `--help` order: Tidewatch's options, then the Watchtower ones accepted for compatibility. */
export const OPTIONS: readonly AnyOptionSpec[] = Object.freeze([...withKeys(CORE_OPTIONS), ...withKeys(COMPAT_OPTIONS)]);

const BY_NAME: ReadonlyMap<string, AnyOptionSpec> = new Map(OPTIONS.map((o) => [o.name, o]));
const BY_KEY: ReadonlyMap<string, AnyOptionSpec> = new Map(OPTIONS.map((o) => [o.key, o]));

export function optionByName(name: string): AnyOptionSpec | undefined {
  return BY_NAME.get(name);
}

export function optionByKey(key: string): AnyOptionSpec | undefined {
  return BY_KEY.get(key);
}

/** `TIDEWATCH_<X>`, or undefined for flag-only options. */
export function envName(spec: AnyOptionSpec): string | undefined {
  if (spec.env === null) return undefined;
  return `TIDEWATCH_${spec.env ?? spec.name.toUpperCase().replace(/-/g, '_')}`;
}

/** The `WATCHTOWER_<X>` alias, or undefined when there is none. */
export function watchtowerEnvName(spec: AnyOptionSpec): string | undefined {
  if (spec.env === null || spec.watchtowerEnv === null) return undefined;
  return `WATCHTOWER_${spec.watchtowerEnv ?? spec.env ?? spec.name.toUpperCase().replace(/-/g, '_')}`;
}

/** `--interval (TIDEWATCH_INTERVAL)`: how messages name an option and where its value was read from. */
export function optionLabel(spec: AnyOptionSpec, where?: string): string {
  const shown = where ?? envName(spec);
  return shown === undefined ? `--${spec.name}` : `--${spec.name} (${shown})`;
}

/** All variables an option reads, in precedence order. */
export function envNames(spec: AnyOptionSpec): string[] {
  return [envName(spec), watchtowerEnvName(spec), spec.externalEnv].filter((v): v is string => v !== undefined);
}

/** A fresh config holding every default (lists copied, so callers may mutate). */
export function defaultConfig(): TidewatchConfig {
  const out: Partial<Record<OptionKey, unknown>> = {};
  for (const o of OPTIONS) out[o.key] = Array.isArray(o.default) ? [...o.default] : o.default;
  return out as TidewatchConfig;
}
