// What every route module receives: the core, the resolved options and the shared guards. Built once
// per server so that each route file stays a plain fastify plugin with no module-level state.
import { TidewatchError } from '../../core/index.js';
import type { TidewatchCore } from '../../core/index.js';
import type { TokenGuard } from './guards/auth.js';
import type { ProxyTrust } from './guards/client-ip.js';
import type { ResolvedHttpApiOptions } from './options.js';

export interface RouteContext {
  readonly core: TidewatchCore;
  readonly options: ResolvedHttpApiOptions;
  readonly proxies: ProxyTrust;
  /** Present when a protected endpoint is enabled (the options check guarantees the token). */
  readonly mainGuard: TokenGuard | undefined;
  /** Present when `events` is enabled. */
  readonly eventsGuard: TokenGuard | undefined;
}

/** Route-level security of the Swagger description. */
export const MAIN_SECURITY = [{ BearerAuth: [] }];
export const EVENTS_SECURITY = [{ EventsToken: [] }];

/** The main guard's hook, or a failure at startup if a protected route was registered without one. */
export function requireMainGuard(ctx: RouteContext): TokenGuard {
  if (!ctx.mainGuard) throw new TidewatchError('TW_ERR_INTERNAL', 'protected HTTP API route registered without a main token', 500);
  return ctx.mainGuard;
}
