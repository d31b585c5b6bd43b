// What each served route asks of its caller, as declared beside its registration (docs/http-api.md#roles):
// a role (`config.role`), another rule (`config.access`: the events token, a webhook's own token), or nothing
// (health probes, Swagger, the dashboard's static files). Collected as routes are added, so a test can hold
// the documentation's table against the routes actually served.
import type { RouteOptions } from 'fastify';
import type { Role } from '../../core/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The role a caller needs (docs/people.md#roles), read by the access hook. */
    role?: Role;
    /** A route that asks for no role says what it asks instead, for the table (`events token`, `own`, `none`). */
    access?: string;
  }
}

export interface AccessRow {
  readonly method: string;
  /** fastify's pattern, `:name` for a parameter. */
  readonly url: string;
  /** `viewer`, `operator`, `admin`, or another rule in words (`events token`, `own token`, `none`). */
  readonly access: string;
}

export class AccessTable {
  readonly #rows: AccessRow[] = [];

  add(route: RouteOptions): void {
    const config = (route.config ?? {}) as { role?: unknown; access?: unknown };
    const access = typeof config.role === 'string' ? config.role : typeof config.access === 'string' ? config.access : 'none';
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    // fastify adds HEAD beside each GET; the table names the GET.
    for (const method of methods) if (method !== 'HEAD') this.#rows.push({ method, url: route.url, access });
  }

  rows(): readonly AccessRow[] {
    return this.#rows;
  }
}
