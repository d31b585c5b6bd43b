// The shape of Tidewatch's configuration: the typed result (`TidewatchConfig`, camelCase, one key per option)
// and the shape of an option table entry. The table itself lives in options.ts (what Tidewatch implements)
// and compat-options.ts (Watchtower options accepted for drop-in compatibility).

export const HTTP_API_ENDPOINTS = [
  'check',
  'config',
  'containers',
  'events',
  'health',
  'history',
  'metrics',
  'swagger',
  'update',
] as const;
export type HttpApiEndpoint = (typeof HTTP_API_ENDPOINTS)[number];

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const LOG_FORMATS = ['auto', 'json', 'pretty', 'logfmt'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Options Tidewatch implements. Durations are milliseconds. */
export interface CoreOptionValues {
  // Scheduling and run mode
  interval: number;
  schedule: string;
  runOnce: boolean;
  updateOnStart: boolean;
  httpApiPeriodicPolls: boolean;
  healthCheck: boolean;
  noStartupMessage: boolean;
  // Container selection
  labelEnable: boolean;
  disableContainers: string[];
  scope: string;
  includeStopped: boolean;
  includeRestarting: boolean;
  reviveStopped: boolean;
  // Update behaviour
  cleanup: boolean;
  removeVolumes: boolean;
  noPull: boolean;
  noRestart: boolean;
  monitorOnly: boolean;
  rollingRestart: boolean;
  stopTimeout: number;
  labelTakePrecedence: boolean;
  useComposeDependsOn: boolean;
  cooldownDelay: number;
  enableLifecycleHooks: boolean;
  lifecycleUid: number;
  lifecycleGid: number;
  updateGracePeriod: number;
  // Registry and Git
  registryTlsSkip: boolean;
  registryConcurrency: number;
  gitToken: string;
  // Docker connection
  host: string;
  tlsverify: boolean;
  apiVersion: string;
  certPath: string;
  // HTTP API
  httpApiEndpoints: HttpApiEndpoint[];
  httpApiToken: string;
  httpApiEventsToken: string;
  httpApiHost: string;
  httpApiPort: number;
  httpApiRateLimit: number;
  httpApiTlsCert: string;
  httpApiTlsKey: string;
  httpApiTrustedProxies: string[];
  httpApiProxyHeader: string;
  httpApiCorsOrigins: string[];
  httpApiCheckTimeout: number;
  httpApiUpdateTimeout: number;
  httpApiEventsMaxSubscribers: number;
  httpApiUpdate: boolean;
  httpApiMetrics: boolean;
  httpApiContainers: boolean;
  // Logging
  logLevel: LogLevel;
  logFormat: LogFormat;
  debug: boolean;
  trace: boolean;
  noColor: boolean;
  // Plugins and files
  plugins: string[];
  config: string;
}

/** Watchtower options Tidewatch accepts (so a Watchtower environment does not exit 2) but does not act on. */
export interface CompatOptionValues {
  porcelain: '' | 'v1' | 'json';
  selfUpdateOrchestrator: boolean;
  monitorImageNames: string[];
  skipImageNames: string[];
  enableContainersByLabel: string[];
  disableContainersByLabel: string[];
  ephemeralSelfUpdate: boolean;
  warnOnHeadFailure: 'always' | 'never' | 'auto';
  registryTlsMinVersion: 'TLS1.0' | 'TLS1.1' | 'TLS1.2' | 'TLS1.3';
  disableMemorySwappiness: boolean;
  cpuCopyMode: 'auto' | 'full' | 'none';
  notificationUrl: string[];
  notificationsLevel: string;
  notificationsDelay: number;
  notificationsHostname: string;
  notificationTemplate: string;
  notificationTemplateFile: string;
  notificationReport: boolean;
  notificationTitleTag: string;
  notificationSkipTitle: boolean;
  notificationLogStdout: boolean;
  notificationSplitByContainer: boolean;
  notifications: string[];
  notificationEmailFrom: string;
  notificationEmailTo: string;
  notificationEmailServer: string;
  notificationEmailServerPort: number;
  notificationEmailServerTlsSkipVerify: boolean;
  notificationEmailServerUser: string;
  notificationEmailServerPassword: string;
  notificationEmailDelay: number;
  notificationEmailSubjecttag: string;
  notificationSlackHookUrl: string;
  notificationSlackIdentifier: string;
  notificationSlackChannel: string;
  notificationSlackIconEmoji: string;
  notificationSlackIconUrl: string;
  notificationMsteamsHook: string;
  notificationGotifyUrl: string;
  notificationGotifyToken: string;
  notificationGotifyTlsSkipVerify: boolean;
}

/** Every option's effective value, camelCase keys. Durations are in milliseconds. */
export interface TidewatchConfig extends CoreOptionValues, CompatOptionValues {}

export type OptionKey = keyof TidewatchConfig;

/** `httpApiEndpoints` → `http-api-endpoints`, at the type level, so a table entry cannot misname its key. */
export type KebabCase<S extends string> = S extends `${infer C}${infer R}`
  ? `${C extends Lowercase<C> ? C : `-${Lowercase<C>}`}${KebabCase<R>}`
  : S;

export type OptionName = KebabCase<OptionKey>;

/** Where a value came from; `default` when no source set it. */
export type ValueSource = 'flag' | 'env' | 'file' | 'default';

export interface ParseContext {
  origin: Exclude<ValueSource, 'default'>;
  /** Directory relative paths are resolved against. */
  cwd: string;
}

export type OptionKind =
  | 'boolean'
  | 'string'
  | 'duration'
  | 'cooldown'
  | 'integer'
  | 'list'
  | 'enum'
  | 'endpoints'
  | 'path';

export type OptionGroup =
  | 'Scheduling and run mode'
  | 'Container selection'
  | 'Update behaviour'
  | 'Registry and Git'
  | 'Docker connection'
  | 'HTTP API'
  | 'Logging'
  | 'Plugins and configuration'
  | 'Watchtower compatibility (accepted, not implemented)';

export interface OptionSpec<K extends OptionKey> {
  /** Flag without `--`, kebab-case. */
  name: KebabCase<K>;
  /** Single-letter flag without `-`. */
  short?: string;
  /**
   * Suffix of the `TIDEWATCH_` variable; default: the name in UPPER_SNAKE. `null`: the option is a flag only.
   */
  env?: string | null;
  /** Suffix of the `WATCHTOWER_` alias; default: the same as `env`. `null`: no alias. */
  watchtowerEnv?: string | null;
  /** An un-prefixed variable read after the prefixed ones (`DOCKER_HOST`, `NO_COLOR`). */
  externalEnv?: string;
  /** The external variable means `true` by being present, whatever its value (the NO_COLOR convention). */
  externalEnvPresence?: boolean;
  kind: OptionKind;
  /** Placeholder in `--help`, e.g. `<duration>`. */
  valueName?: string;
  default: TidewatchConfig[K];
  /** Turns one raw string into the typed value; throws an Error whose message says what is accepted. */
  parse: (raw: string, ctx: ParseContext) => TidewatchConfig[K];
  /** List options: how repeated flags and config-file arrays are joined before `parse`. */
  join?: string;
  /** A secret: redacted in errors, logs and the view; a value naming an existing file is read from it. */
  secret?: boolean;
  /** Secrets: how the file's content becomes the raw value (default: trimmed). */
  fromSecretFile?: (content: string) => string;
  description: string;
  group: OptionGroup;
  /** Not shown in `--help` (internal flags). */
  hidden?: boolean;
}

/** Any entry of the table, with its key. */
export type AnyOptionSpec = { [K in OptionKey]: OptionSpec<K> & { key: K } }[OptionKey];

export type OptionTable<T> = { readonly [K in keyof T & OptionKey]: OptionSpec<K> };
