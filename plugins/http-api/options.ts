// The HTTP API's options, each declared once (docs/configuration.md#declaring-options), and the rules
// between them (docs/interface.md §3): which endpoints need which token, TLS needs a certificate and a key.
import { invalidOptions, option, type OptionValues, TidewatchError } from '../../core/index.js';
import {
  ENDPOINTS,
  parseCorsOrigins,
  parseEndpoints,
  parseHeaderName,
  parseListenHost,
  parseTrustedProxies,
  type Endpoint,
} from './option-parsers.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { accessSync, constants, statSync } = process.getBuiltinModule('node:fs');

export { ENDPOINTS, type Endpoint };

/** Endpoints behind the main token (docs/interface.md §3). */
export const PROTECTED_ENDPOINTS: readonly Endpoint[] = ['update', 'check', 'metrics', 'containers', 'config', 'history', 'images',
  // docs/state.md: the audit trail, rollback and release.
  'audit', 'rollback',
  // docs/snapshots.md: the volume snapshots.
  'snapshots',
  // docs/policies.md: the approvals a person decides.
  'approvals',
  // docs/people.md: personal API tokens.
  'tokens',
  // docs/rollouts.md: staged rollouts and their release.
  'rollouts',
  // docs/fleet.md: agents and their enrolments.
  'agents'];

const group = 'HTTP API';
const nonEmpty = { type: 'string', minLength: 1 } as const;

export const httpApiOptions = {
  endpoints: option.custom<Endpoint[]>({
    flag: 'http-api-endpoints', kind: 'list', valueName: '<names>', default: [], parse: parseEndpoints, group,
    schema: { type: 'array', items: { enum: [...ENDPOINTS] }, uniqueItems: true },
    description: `Endpoints to enable: ${ENDPOINTS.join(' ')}, or all. Empty: API off.`,
  }),
  token: option.string({
    flag: 'http-api-token', valueName: '<token|file>', secret: true, group,
    description: `Main bearer token (or a file holding it); required by ${PROTECTED_ENDPOINTS.join(' ')}.`,
  }),
  eventsToken: option.string({
    flag: 'http-api-events-token', valueName: '<token|file>', secret: true, group,
    description: 'Token for /v1/events (or a file holding it); required by events.',
  }),
  host: option.custom<string>({
    flag: 'http-api-host', kind: 'string', valueName: '<ip>', default: '0.0.0.0', parse: parseListenHost,
    schema: nonEmpty, group, description: 'Address the API listens on (an IPv4 or IPv6 address).',
  }),
  port: option.integer({
    flag: 'http-api-port', valueName: '<port>', default: 8080, max: 65535, group, description: 'Port the API listens on.',
  }),
  rateLimit: option.integer({
    flag: 'http-api-rate-limit', default: 60, group, description: 'Requests per minute per client IP; 0 turns the limit off.',
  }),
  tlsCert: option.path({
    flag: 'http-api-tls-cert', group, description: 'TLS certificate (PEM); needs --http-api-tls-key.',
  }),
  tlsKey: option.path({
    flag: 'http-api-tls-key', group, description: 'TLS private key (PEM); needs --http-api-tls-cert.',
  }),
  trustedProxies: option.custom<string[]>({
    flag: 'http-api-trusted-proxies', kind: 'list', valueName: '<ips>', default: [], parse: parseTrustedProxies,
    schema: { type: 'array', items: nonEmpty }, group, description: 'Proxy IPs or CIDRs whose client-IP header is believed.',
  }),
  proxyHeader: option.custom<string>({
    flag: 'http-api-proxy-header', kind: 'string', valueName: '<header>', default: 'X-Forwarded-For',
    parse: parseHeaderName, schema: nonEmpty, group, description: 'Header carrying the client IP behind a trusted proxy.',
  }),
  corsOrigins: option.custom<string[]>({
    flag: 'http-api-cors-origins', kind: 'list', valueName: '<origins>', default: [], parse: parseCorsOrigins,
    schema: { type: 'array', items: nonEmpty }, group, description: 'Origins allowed cross-origin access (* for any).',
  }),
  checkTimeoutMs: option.duration({
    flag: 'http-api-check-timeout', default: 300_000, zeroMeans: 300_000, positive: true, group,
    description: 'Time limit of /v1/check and ceiling of its ?timeout= (0: the default).',
  }),
  updateTimeoutMs: option.duration({
    flag: 'http-api-update-timeout', default: 600_000, zeroMeans: 600_000, positive: true, group,
    description: 'Time limit of /v1/update and ceiling of its ?timeout= (0: the default).',
  }),
  eventsMaxSubscribers: option.integer({
    flag: 'http-api-events-max-subscribers', min: 1, default: 1000, group,
    description: 'Concurrent /v1/events subscribers; more get 503.',
  }),
  // 15s keeps most proxies from closing an idle stream (docs/interface.md §6); some close sooner.
  eventsPingIntervalMs: option.duration({
    flag: 'http-api-events-ping-interval', default: 15_000, positive: true, group,
    description: 'How often /v1/events sends a ": ping" comment, so proxies keep an idle stream open.',
  }),
  periodicPolls: option.boolean({
    flag: 'http-api-periodic-polls', group: 'Scheduling and run mode',
    description: 'Keep scheduled runs going while the HTTP update endpoint is enabled.',
  }),
  legacyUpdate: option.boolean({
    flag: 'http-api-update', group, description: 'Deprecated: same as adding update to --http-api-endpoints.',
  }),
  legacyMetrics: option.boolean({
    flag: 'http-api-metrics', group, description: 'Deprecated: same as adding metrics to --http-api-endpoints.',
  }),
  legacyContainers: option.boolean({
    flag: 'http-api-containers', group, description: 'Deprecated: same as adding containers to --http-api-endpoints.',
  }),
};

export type HttpApiOptionValues = OptionValues<typeof httpApiOptions>;
/** What an embedder passes: any subset; the declarations' defaults fill the rest. */
export type HttpApiOptions = Partial<HttpApiOptionValues>;

/** The options as the API uses them: Watchtower's deprecated switches folded into the endpoint list. */
export type ResolvedHttpApiOptions = Omit<HttpApiOptionValues, 'legacyUpdate' | 'legacyMetrics' | 'legacyContainers'>;

export function effectiveEndpoints(options: HttpApiOptionValues): Endpoint[] {
  const endpoints = new Set(options.endpoints);
  if (options.legacyUpdate) endpoints.add('update');
  if (options.legacyMetrics) endpoints.add('metrics');
  if (options.legacyContainers) endpoints.add('containers');
  return [...endpoints].sort();
}

export function resolveHttpApiOptions(options: HttpApiOptionValues): ResolvedHttpApiOptions {
  const { legacyUpdate: _u, legacyMetrics: _m, legacyContainers: _c, ...rest } = options;
  return { ...rest, endpoints: effectiveEndpoints(options) };
}

function checkReadableFile(key: 'tlsCert' | 'tlsKey', path: string, label: (key: keyof HttpApiOptionValues & string) => string): void {
  try {
    if (!statSync(path).isFile()) throw Object.assign(new TidewatchError('TW_ERR_CONFIG', 'not a file', 500), { code: 'not a regular file' });
    accessSync(path, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw invalidOptions(httpApiOptions[key].flag, `invalid value ${JSON.stringify(path)} for ${label(key)}: expected a readable PEM file (${code})`);
  }
}

/** The rules the declarations cannot express; throws a configuration error naming the option. */
export function checkHttpApiOptions(options: HttpApiOptionValues, label: (key: keyof HttpApiOptionValues & string) => string): void {
  const enabled = effectiveEndpoints(options);
  if ((options.tlsCert === '') !== (options.tlsKey === '')) {
    const [missing, given] = options.tlsCert === '' ? (['tlsCert', 'tlsKey'] as const) : (['tlsKey', 'tlsCert'] as const);
    throw invalidOptions(
      httpApiOptions[missing].flag,
      `${label(missing)} is missing: ${label(given)} is set to ${JSON.stringify(options[given])}, and HTTPS needs both a certificate and a key`,
    );
  }
  if (options.tlsCert !== '') {
    checkReadableFile('tlsCert', options.tlsCert, label);
    checkReadableFile('tlsKey', options.tlsKey, label);
  }
  const needMain = PROTECTED_ENDPOINTS.filter((e) => enabled.includes(e));
  if (needMain.length > 0 && options.token === '') {
    throw invalidOptions(
      'http-api-token',
      `${label('token')} is required when these endpoints are enabled: ${needMain.join(', ')} (${label('endpoints')} is ${JSON.stringify(enabled.join(','))}); set the token or the path of a file holding it`,
    );
  }
  if (enabled.includes('events') && options.eventsToken === '') {
    throw invalidOptions(
      'http-api-events-token',
      `${label('eventsToken')} is required when the events endpoint is enabled (${label('endpoints')} is ${JSON.stringify(enabled.join(','))}); set the token or the path of a file holding it`,
    );
  }
}
