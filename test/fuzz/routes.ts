// The routes the fuzz suite drives, as data: a route that lands later is one more entry. Entries marked
// `whenListed` are used only when the service's /swagger/doc.json describes their path, so the suite picks
// up the webhook, rollback, release and audit routes by itself once they are merged
// (docs/http-api.md#endpoints).

export type Realm = 'main' | 'events' | 'hook' | 'none';

export interface FuzzRoute {
  readonly method: string;
  /** `{name}` segments are filled with random values. */
  readonly path: string;
  readonly auth: Realm;
  /** Query parameters the route reads, to fuzz their values. */
  readonly query?: readonly string[];
  /** Reads a request body. */
  readonly body?: boolean;
  /** The Swagger path that must be listed for the route to be fuzzed (routes that land later). */
  readonly whenListed?: string;
  /** Values a `{name}` segment takes most of the time (else a random one). */
  readonly params?: Readonly<Record<string, readonly string[]>>;
}

/** The webhook receivers the suite configures when the binary knows `--webhook` (docs/webhooks.md). */
export const HOOK_RECEIVERS = ['fuzzreg', 'fuzzgh'] as const;

/**
 * Options that make later routes exist, passed only when the binary's --help lists the flag: one
 * receiver with a token, one with an HMAC secret.
 */
export function routeOptions(help: string, secrets: { readonly hookToken: string; readonly hookSecret: string }): string[] {
  if (!help.includes('--webhook')) return [];
  return ['--webhook', `fuzzreg=distribution,token=${secrets.hookToken}`, '--webhook', `fuzzgh=github,secret=${secrets.hookSecret}`];
}

export const ROUTES: readonly FuzzRoute[] = [
  { method: 'POST', path: '/v1/check', auth: 'main', query: ['container', 'image', 'host', 'timeout'] },
  { method: 'POST', path: '/v1/update', auth: 'main', query: ['container', 'image', 'host', 'timeout', 'async', 'plan'] },
  { method: 'GET', path: '/v1/events', auth: 'events', query: ['access_token', 'last_event_id'] },
  { method: 'GET', path: '/v1/metrics', auth: 'main' },
  { method: 'GET', path: '/v1/status', auth: 'main' },
  { method: 'GET', path: '/v1/containers', auth: 'main', query: ['name', 'image'] },
  { method: 'GET', path: '/v1/containers/details', auth: 'main', query: ['name', 'image'] },
  { method: 'GET', path: '/v1/config', auth: 'main' },
  { method: 'GET', path: '/v1/history', auth: 'main', query: ['since', 'until', 'limit'] },
  { method: 'GET', path: '/v1/images', auth: 'main' },
  { method: 'GET', path: '/livez', auth: 'none' },
  { method: 'GET', path: '/readyz', auth: 'none' },
  { method: 'GET', path: '/startupz', auth: 'none' },
  { method: 'GET', path: '/swagger/index.html', auth: 'none' },
  { method: 'GET', path: '/swagger/doc.json', auth: 'none' },
  { method: 'GET', path: '/swagger/doc.yaml', auth: 'none' },
  { method: 'GET', path: '/ui/', auth: 'none' },
  // Routes of later issues: fuzzed once the service describes them.
  { method: 'POST', path: '/v1/hooks/{receiver}', auth: 'hook', body: true, whenListed: '/v1/hooks/{receiver}', params: { receiver: HOOK_RECEIVERS } },
  {
    method: 'POST',
    path: '/v1/hooks/{receiver}/{token}',
    auth: 'none',
    body: true,
    whenListed: '/v1/hooks/{receiver}/{token}',
    params: { receiver: HOOK_RECEIVERS },
  },
  { method: 'POST', path: '/v1/rollback', auth: 'main', query: ['container', 'image', 'host'], whenListed: '/v1/rollback' },
  { method: 'POST', path: '/v1/release', auth: 'main', query: ['container', 'image', 'host'], whenListed: '/v1/release' },
  { method: 'GET', path: '/v1/audit', auth: 'main', query: ['since', 'until', 'limit'], whenListed: '/v1/audit' },
  { method: 'POST', path: '/v1/plan', auth: 'main', query: ['container', 'image', 'host', 'timeout'], whenListed: '/v1/plan' },
];

/** The routes this service serves: the always-present ones and those its Swagger description lists. */
export function enabledRoutes(swaggerPaths: readonly string[]): FuzzRoute[] {
  const listed = new Set(swaggerPaths);
  return ROUTES.filter((route) => route.whenListed === undefined || listed.has(route.whenListed));
}

/** Statuses a route may answer under fuzzing; 5xx only where documented (docs/http-api.md). */
export const DOCUMENTED_5XX: ReadonlySet<number> = new Set([503]);
