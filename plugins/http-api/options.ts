// The plugin's options and their JSON schema. The server has already validated and expanded the
// user's flags (`all` → every endpoint, secret files → their content); the schema guards embedders
// and fills the defaults of decisions.md §3 through ajv's useDefaults.
import type { JsonSchema } from '../../core/index.js';

export const ENDPOINTS = [
  'update',
  'check',
  'events',
  'swagger',
  'metrics',
  'containers',
  'config',
  'history',
  'health',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** Endpoints behind the main token (decisions.md §3). */
export const PROTECTED_ENDPOINTS: readonly Endpoint[] = ['update', 'check', 'metrics', 'containers', 'config', 'history'];

export interface HttpApiOptions {
  /** Enabled endpoints; a route exists only when its endpoint is listed. Health probes always exist. */
  endpoints?: Endpoint[];
  /** Main token; required when a protected endpoint is enabled. */
  token?: string;
  /** Events token; required when `events` is enabled. */
  eventsToken?: string;
  /** Listen address (default `0.0.0.0`). */
  host?: string;
  /** Listen port (default 8080; 0 picks a free one). */
  port?: number;
  /** Requests per minute per client IP; 0 turns the limiter off (default 60). */
  rateLimit?: number;
  /** Peers (addresses or CIDRs) whose `proxyHeader` and `X-Forwarded-Proto` are believed. */
  trustedProxies?: string[];
  /** Header naming the client behind a trusted proxy (default `X-Forwarded-For`). */
  proxyHeader?: string;
  /** Origins allowed cross-origin access; `*` allows any, without credentials. */
  corsOrigins?: string[];
  /** Upper bound and default of `/v1/check`'s `timeout`, in ms (default 300000). */
  checkTimeoutMs?: number;
  /** Upper bound and default of `/v1/update`'s `timeout`, in ms (default 600000). */
  updateTimeoutMs?: number;
  /** Concurrent `/v1/events` subscribers (default 1000). */
  eventsMaxSubscribers?: number;
  /** PEM certificate file; with `tlsKey`, the API speaks HTTPS. */
  tlsCert?: string;
  /** PEM private key file. */
  tlsKey?: string;
  /** The redacted effective configuration `/v1/config` shows. */
  configView?: Record<string, unknown>;
}

/** The options after ajv filled the defaults. */
export type ResolvedHttpApiOptions = HttpApiOptions &
  Required<
    Pick<
      HttpApiOptions,
      | 'endpoints'
      | 'host'
      | 'port'
      | 'rateLimit'
      | 'trustedProxies'
      | 'proxyHeader'
      | 'corsOrigins'
      | 'checkTimeoutMs'
      | 'updateTimeoutMs'
      | 'eventsMaxSubscribers'
    >
  >;

const nonEmptyString = { type: 'string', minLength: 1 } as const;

export const optionsSchema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    endpoints: { type: 'array', items: { enum: [...ENDPOINTS] }, uniqueItems: true, default: [] },
    token: { type: 'string' },
    eventsToken: { type: 'string' },
    host: { ...nonEmptyString, default: '0.0.0.0' },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
    rateLimit: { type: 'integer', minimum: 0, default: 60 },
    trustedProxies: { type: 'array', items: nonEmptyString, default: [] },
    proxyHeader: { ...nonEmptyString, default: 'X-Forwarded-For' },
    corsOrigins: { type: 'array', items: nonEmptyString, default: [] },
    checkTimeoutMs: { type: 'number', exclusiveMinimum: 0, default: 300_000 },
    updateTimeoutMs: { type: 'number', exclusiveMinimum: 0, default: 600_000 },
    eventsMaxSubscribers: { type: 'integer', minimum: 1, default: 1000 },
    tlsCert: nonEmptyString,
    tlsKey: nonEmptyString,
    configView: { type: 'object' },
  },
  dependencies: { tlsCert: ['tlsKey'], tlsKey: ['tlsCert'] },
};

/** Refuses what the schema cannot express: an enabled endpoint whose token is missing. */
export function checkTokens(options: ResolvedHttpApiOptions): void {
  const needsMain = options.endpoints.filter((e) => PROTECTED_ENDPOINTS.includes(e));
  if (needsMain.length > 0 && !options.token) {
    throw new Error(`a main token is required when ${needsMain.join(', ')} ${needsMain.length > 1 ? 'are' : 'is'} enabled`);
  }
  if (options.endpoints.includes('events') && !options.eventsToken) {
    throw new Error('an events token is required when events is enabled');
  }
}
