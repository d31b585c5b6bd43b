// The HTTP API plugin (spec http-api.md, docs/interface.md §3–7): a fastify server whose routes call the
// core like any embedder would. `createHttpApiPlugin()` gives a fresh instance that remembers the
// address it bound, so a caller that asked for port 0 (tests, embedders) can find the server.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { TidewatchCore, TidewatchPlugin } from '../../core/index.js';
import type { AccessRow } from './access-table.js';
import {
  checkHttpApiOptions,
  effectiveEndpoints,
  httpApiOptions,
  resolveHttpApiOptions,
  type HttpApiOptionValues,
} from './options.js';

export const PLUGIN_NAME = 'http-api';

export type { Endpoint, HttpApiOptions } from './options.js';
export type { AccessRow } from './access-table.js';
export { ENDPOINTS, PROTECTED_ENDPOINTS, httpApiOptions } from './options.js';

export interface HttpApiAddress {
  /** The address the socket is bound to, e.g. `0.0.0.0` or `127.0.0.1`. */
  readonly host: string;
  readonly port: number;
  /** A URL a local client can use: a wildcard bind is reached through loopback. */
  readonly url: string;
}

export interface HttpApiPlugin extends TidewatchPlugin<HttpApiOptionValues> {
  /** Where the server listens, once `apply` has resolved; undefined before and after close. */
  readonly address: HttpApiAddress | undefined;
  /** The fastify instance of the last `apply` (for `inject` in tests); undefined before. */
  readonly server: FastifyInstance | undefined;
  /** What each served route asks of its caller, as declared (docs/http-api.md#roles); empty before `apply`. */
  readonly routeAccess: readonly AccessRow[];
}

function describeAddress(info: AddressInfo, tls: boolean): HttpApiAddress {
  const wildcard = info.address === '0.0.0.0' || info.address === '::';
  const host = wildcard ? (info.family === 'IPv6' && info.address === '::' ? '::1' : '127.0.0.1') : info.address;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return { host: info.address, port: info.port, url: `${tls ? 'https' : 'http'}://${hostPart}:${info.port}` };
}

// A class rather than definePlugin's object: each instance remembers the address it bound.
class HttpApi implements HttpApiPlugin {
  readonly name = PLUGIN_NAME;
  readonly options = httpApiOptions;
  #address: HttpApiAddress | undefined;
  #server: FastifyInstance | undefined;
  #access: readonly AccessRow[] = [];

  get routeAccess(): readonly AccessRow[] {
    return this.#access;
  }

  get address(): HttpApiAddress | undefined {
    return this.#address;
  }

  get server(): FastifyInstance | undefined {
    return this.#server;
  }

  /** The API runs when at least one endpoint is enabled. */
  enabled(options: HttpApiOptionValues): boolean {
    return effectiveEndpoints(options).length > 0;
  }

  check(options: HttpApiOptionValues, label: (key: string) => string): void {
    checkHttpApiOptions(options, label);
  }

  async apply(core: TidewatchCore, declared: HttpApiOptionValues): Promise<void> {
    const options = resolveHttpApiOptions(declared);
    // Enabling the update endpoint hands update runs to the API unless periodic polls are asked for
    // (Watchtower's rule, docs/http-api-contract.md §1).
    if (options.endpoints.includes('update') && !options.periodicPolls) core.takeOverScheduling(PLUGIN_NAME);
    // fastify and its plugins load only when the API runs.
    const { buildServer } = await import('./server.js');
    const { app, dispose, access } = await buildServer(core, options);
    this.#access = access.rows();
    await app.listen({ host: options.host, port: options.port });
    const address = describeAddress(app.server.address() as AddressInfo, Boolean(options.tlsCert));
    this.#server = app;
    this.#address = address;
    core.logger.info({ address: address.url, endpoints: options.endpoints }, 'HTTP API listening');
    core.onClose(async () => {
      dispose();
      await app.close();
      if (this.#server === app) this.#address = undefined;
    });
  }
}

/** A fresh plugin instance; read `.address` after `createTidewatch` resolved. */
export function createHttpApiPlugin(): HttpApiPlugin {
  return new HttpApi();
}

/** The instance the server loads by name; embedders running several APIs create their own. */
export const httpApiPlugin: HttpApiPlugin = createHttpApiPlugin();
