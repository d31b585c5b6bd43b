// The routes the Swagger description is made of, recorded as the server adds them. Recording is all the
// server does at start: the description's generator and Swagger UI (swagger/ui.ts) load at the first request
// under /swagger/ and build the description from this record (docs/performance.md#footprint).
import type { FastifyInstance, RouteOptions } from 'fastify';
import { SWAGGER_PREFIX } from './paths.js';

/** What the description needs of a route: its method, path, schema and configuration, as registered. */
export interface DescribedRoute {
  readonly method: RouteOptions['method'];
  readonly url: string;
  readonly schema: RouteOptions['schema'];
  readonly config: RouteOptions['config'];
}

export class DescribedRoutes {
  readonly #routes: DescribedRoute[] = [];

  /** Records every route `app` adds from now on; must run before the routes it describes are added. */
  static recordFrom(app: FastifyInstance): DescribedRoutes {
    const described = new DescribedRoutes();
    app.addHook('onRoute', (route) => described.add(route));
    return described;
  }

  add(route: RouteOptions): void {
    // HEAD routes fastify adds beside each GET are not described (Swagger's own default), nor the page's own routes.
    if (route.method === 'HEAD' || route.url.startsWith(`${SWAGGER_PREFIX}/`)) return;
    this.#routes.push({ method: route.method, url: route.url, schema: route.schema, config: route.config });
  }

  get routes(): readonly DescribedRoute[] {
    return this.#routes;
  }
}
