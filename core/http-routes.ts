// Routes other plugins add to the HTTP API's server (docs/plugins.md#http-routes): the webhook receivers'
// `POST /v1/hooks/{receiver}` are served by the http-api plugin, but neither plugin imports the other. A
// contributor registers a framework-neutral definition under `HTTP_ROUTES` while it is applied; the API
// serves the definitions whose endpoint name is enabled in --http-api-endpoints when it builds its server
// (it is applied last, server/builtins.ts), under its own rate limiter, body limit and error shape.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { TidewatchError } from './errors.js';
import type { Principal, Role } from './people.js';
import { defineService, type ServiceKey, type Services } from './services.js';

/** One request as a contributed route sees it: nothing of the HTTP framework leaks through. */
export interface HttpRouteRequest {
  /** Path parameters by name (`:receiver` → `receiver`). */
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters by name; a repeated parameter gives its first value. */
  readonly query: Readonly<Record<string, string>>;
  /** Header values by lower-case name; a repeated header gives its first value. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** The raw body, at most the route's `bodyLimit` bytes (an HMAC is computed over exactly these bytes). */
  readonly body: Buffer;
  /** The client IP as the API's rate limiter keys it (a trusted proxy's header, else the peer). */
  readonly ip: string;
  /** Who called, when the API authenticated the request (a route with a `role`): its actor and role. */
  readonly principal?: Principal;
}

/** What a contributed route answers: a JSON body (the API adds `api_version` and `timestamp`) or an error. */
export interface HttpRouteResponse {
  readonly status: number;
  readonly body?: Readonly<Record<string, unknown>>;
  /** Sent in the API's error shape `{"error","code","api_version","timestamp"}` (docs/errors.md). */
  readonly error?: { readonly message: string; readonly code: string };
  /** Several values of one header (`Set-Cookie`) as an array. */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
}

export interface HttpRouteDefinition {
  /** The --http-api-endpoints name that enables the route (`hooks`); an unknown name is never served. */
  readonly endpoint: string;
  readonly method: 'POST' | 'PUT' | 'GET' | 'DELETE';
  /** The path in the router's syntax, parameters as `:name` (`/v1/hooks/:receiver`). */
  readonly url: string;
  /** Larger bodies are refused with 413 before the handler runs. */
  readonly bodyLimit: number;
  /**
   * The role a caller needs (docs/people.md#roles): the API authenticates the request before anything else, as
   * for its own routes (the main token, a personal token or a session; 401 otherwise, 403 without the role),
   * and the endpoint name is protected: it needs the main token configured. Absent with no `auth`: the route
   * authenticates its callers itself (webhook receivers hold their own tokens).
   */
  readonly role?: Role;
  /** Older spelling of `role: 'admin'`: behind the API's credentials, admins only unless `role` says otherwise. */
  readonly auth?: 'main';
  /** The operation's description for Swagger: summary, description, tags, params, consumes, response. */
  readonly schema?: Readonly<Record<string, unknown>>;
  /** Never throws for a request's fault: every answer, errors included, is a returned response. */
  handle(request: HttpRouteRequest): Promise<HttpRouteResponse> | HttpRouteResponse;
  /**
   * Told of a request the API refused before `handle` ran (413: a body above `bodyLimit`), so the route can
   * count it as it counts its own refusals; the path parameters are as sent, unauthenticated.
   */
  refused?(request: HttpRouteRefusal): void;
}

/** A request refused by the API before the route's handler saw it. */
export interface HttpRouteRefusal {
  readonly params: Readonly<Record<string, string>>;
  readonly status: number;
}

/**
 * A connection upgrade (WebSocket) served on the API's port (docs/plugins.md#http-routes): the agents' tunnel,
 * `GET /v1/agents/connect`. The API matches the exact path, counts the request in its rate limiter (429 and
 * closed past it), refuses any request with an `Origin` (no browser opens these) and then hands the socket
 * over: the route authenticates the peer itself, bounds its frames and logs its refusals.
 */
export interface HttpUpgradeDefinition {
  readonly endpoint: string;
  /** The exact path, no parameters (`/v1/agents/connect`). */
  readonly url: string;
  handle(request: IncomingMessage, socket: Duplex, head: Buffer, ip: string): void;
}

export interface HttpRoutes {
  /** Adds a route; throws once the API has built its server (a plugin applied after the http-api plugin). */
  register(route: HttpRouteDefinition): void;
  /** The routes of an endpoint name, for the API building its server; registering afterwards is an error. */
  take(endpoint: string): readonly HttpRouteDefinition[];
  /** Adds an upgrade route; the same rule as `register`. */
  registerUpgrade(route: HttpUpgradeDefinition): void;
  /** The upgrade routes of an endpoint name. */
  takeUpgrades(endpoint: string): readonly HttpUpgradeDefinition[];
}

export const HTTP_ROUTES: ServiceKey<HttpRoutes> = defineService<HttpRoutes>('http-routes');

class RouteCollector implements HttpRoutes {
  readonly #routes: HttpRouteDefinition[] = [];
  readonly #upgrades: HttpUpgradeDefinition[] = [];
  #taken = false;

  #open(method: string, url: string): void {
    if (this.#taken) {
      throw new TidewatchError(
        'TW_ERR_HTTP_ROUTES_CLOSED',
        `route ${method} ${url} was registered after the HTTP API built its server: apply the plugin before the http-api plugin`,
        500,
      );
    }
  }

  register(route: HttpRouteDefinition): void {
    this.#open(route.method, route.url);
    this.#routes.push(Object.freeze({ ...route }));
  }

  take(endpoint: string): readonly HttpRouteDefinition[] {
    this.#taken = true;
    return this.#routes.filter((r) => r.endpoint === endpoint);
  }

  registerUpgrade(route: HttpUpgradeDefinition): void {
    this.#open('GET', route.url);
    this.#upgrades.push(Object.freeze({ ...route }));
  }

  takeUpgrades(endpoint: string): readonly HttpUpgradeDefinition[] {
    this.#taken = true;
    return this.#upgrades.filter((r) => r.endpoint === endpoint);
  }
}

/**
 * The one route registration point of a core: the first plugin to ask provides it, so contributors and
 * the API agree on it whatever their order (docs/plugins.md#http-routes).
 */
export function httpRoutes(services: Services): HttpRoutes {
  const existing = services.get(HTTP_ROUTES);
  if (existing) return existing;
  const collector = new RouteCollector();
  services.provide(HTTP_ROUTES, collector);
  return collector;
}
