// HTTP to the Docker Engine API over its socket, TCP (with TLS) or SSH (a channel per connection, ssh/tunnel.ts,
// docs/ssh-hosts.md), on Node's own http/https. The Engine
// speaks plain HTTP/1.1 with JSON bodies; a general client library would add nothing here, and dockerode
// with its transport loads SSH, gRPC and protobuf code no Tidewatch call uses, a third of the idle
// process (docs/performance.md#memory). One keep-alive agent per engine reuses connections across calls.
import type http from 'node:http';
import type https from 'node:https';
import type { Duplex } from 'node:stream';
import { TidewatchError } from '../../../core/index.js';
import type { EngineRequestOptions } from '../contracts.js';
import type { DockerEndpoint } from './endpoint.js';
import { PROXY_REFUSED, isProxyRefusal, refusalMessage } from './socket-proxy.js';
import type { SshSettings } from './ssh/settings.js';
import type { SshTunnel } from './ssh/tunnel.js';

/** The Engine refused a call: its HTTP status and its own message, as docs/errors.md describes. */
export class EngineError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly json: { readonly message?: string } | undefined,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/**
 * A socket proxy in front of the Engine refused the call (docs/security.md#when-the-proxy-refuses-a-call): the message names
 * the call and the proxy switches it needs, as docs/errors.md lists under TW_ERR_DOCKER_PROXY_REFUSED. Its status
 * is the HTTP API's, 502 (Tidewatch's own upstream refused); the proxy's 403 is in the message.
 */
export class SocketProxyRefusal extends TidewatchError {
  /** `POST /containers/{id}/stop` */
  readonly endpoint: string;
  /** `['CONTAINERS', 'POST']` */
  readonly switches: readonly string[];

  constructor(method: string, path: string) {
    const { endpoint, switches, message } = refusalMessage(method, path);
    super(PROXY_REFUSED, message, 502);
    this.name = 'SocketProxyRefusal';
    this.endpoint = endpoint;
    this.switches = switches;
  }
}

export function isSocketProxyRefusal(err: unknown): err is SocketProxyRefusal {
  return err instanceof SocketProxyRefusal;
}

export interface TlsMaterial {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

export interface EngineTransportOptions {
  readonly endpoint: DockerEndpoint;
  readonly tls?: TlsMaterial;
  /** `v1.41`: prefixes every path; absent: the Engine's own current version. */
  readonly version?: string;
  /** An ssh:// endpoint's key and known_hosts file (docs/ssh-hosts.md). */
  readonly ssh?: SshSettings;
}

/**
 * Node's http through `process.getBuiltinModule`, not an ES import: importing node:http as a module reads
 * its lazy `WebSocket` getter, which loads Node's bundled fetch and WebSocket client (undici, with tls,
 * http2 and zlib), about 13 MB of an idle process (docs/performance.md#memory).
 */
function httpModule(): typeof http {
  return process.getBuiltinModule('node:http');
}

/** node:https (and with it TLS) loads only for an engine reached over TLS. */
function httpsModule(): typeof https {
  return process.getBuiltinModule('node:https');
}

export type QueryValues = EngineRequestOptions['query'];

/** A call's options: JSON `body`, or a `raw` one (a tar archive, `PUT /containers/{id}/archive`); `agent: false` for a connection of its own. */
export interface EngineCallOptions extends EngineRequestOptions {
  readonly agent?: false;
  readonly raw?: { readonly body: Buffer; readonly contentType: string };
  /** A body streamed (chunked): a volume snapshot's tar (docs/snapshots.md). Its errors abort the call. */
  readonly stream?: { readonly body: NodeJS.ReadableStream & { destroy(error?: Error): void }; readonly contentType: string };
}

function queryString(query: QueryValues): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** The whole answer, read with the stream's events (cheaper than an async iterator per call, docs/performance.md). */
function readBody(response: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => resolve(Buffer.concat(chunks)));
    response.once('error', reject);
    response.once('close', () => {
      if (!response.complete) reject(new Error('the engine closed the connection before its answer was complete'));
    });
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function engineError(response: http.IncomingMessage, method: string, path: string): Promise<EngineError | SocketProxyRefusal> {
  const text = (await readBody(response)).toString('utf8');
  const json = parseJson(text) as { message?: string } | undefined;
  if (isProxyRefusal(response.statusCode ?? 0, json)) return new SocketProxyRefusal(method, path);
  const message = typeof json?.message === 'string' ? json.message : text.trim() || `HTTP ${response.statusCode}`;
  return new EngineError(response.statusCode ?? 0, message, json);
}

/**
 * Node's `createConnection` over a tunnel (docs/fleet.md): each connection is a stream of the agent's tunnel,
 * on which the client speaks HTTP/1.1 as on a socket. No tunnel: the request fails with the tunnel's error.
 */
function tunnelConnection(connect: () => Duplex) {
  return (_options: http.ClientRequestArgs, callback?: (err: Error | null, stream: Duplex) => void): Duplex | undefined => {
    try {
      return connect();
    } catch (err) {
      process.nextTick(() => callback?.(err as Error, undefined as unknown as Duplex));
      return undefined;
    }
  };
}

/**
 * An ssh:// engine's agents (docs/ssh-hosts.md): every connection they make is a new channel over the host's
 * one SSH connection; the keep-alive one reuses channels as the other engines' agents reuse sockets, the
 * other serves the calls that need a connection of their own (`agent: false`).
 */
function sshAgents(endpoint: Extract<DockerEndpoint, { kind: 'ssh' }>, settings: SshSettings | undefined): { tunnel: SshTunnel; shared: http.Agent; own: http.Agent } {
  if (!settings) throw new TidewatchError('TW_ERR_DOCKER_HOST', `${endpoint.name}: an ssh:// engine needs its SSH settings (--ssh-key, --ssh-known-hosts)`, 400);
  const tunnel = new settings.Tunnel(endpoint.name, endpoint, settings);
  const { Agent } = httpModule();
  const shared = new Agent({ keepAlive: true });
  const own = new Agent({ keepAlive: false });
  // An own property: http.Agent looks createConnection up on the agent, and takes a socket from its callback.
  for (const agent of [shared, own]) Object.assign(agent, { createConnection: tunnel.createConnection });
  return { tunnel, shared, own };
}

export class EngineTransport {
  readonly #options: EngineTransportOptions;
  readonly #agent: http.Agent;
  /** For `agent: false` calls over SSH or an agent's tunnel (Node's own `agent: false` would dial with net). */
  readonly #ownAgent: http.Agent | undefined;
  readonly #tunnel: SshTunnel | undefined;
  readonly #client: typeof http | typeof https;
  /** When the engine last answered a call with success (ms); cleared when a call could not reach it since. */
  #answeredAt: number | undefined;

  constructor(options: EngineTransportOptions) {
    this.#options = options;
    const { endpoint } = options;
    const secure = endpoint.kind === 'tcp' && endpoint.protocol === 'https';
    this.#client = secure ? httpsModule() : httpModule();
    if (endpoint.kind === 'ssh') {
      const { tunnel, shared, own } = sshAgents(endpoint, options.ssh);
      this.#tunnel = tunnel;
      this.#agent = shared;
      this.#ownAgent = own;
      return;
    }
    this.#agent = secure
      ? new (this.#client as typeof https).Agent({ keepAlive: true, ...options.tls })
      : new (httpModule().Agent)({ keepAlive: true });
    if (endpoint.kind === 'tunnel') {
      this.#agent.createConnection = tunnelConnection(endpoint.connect);
      // Node ignores a request's own `createConnection` when `agent` is false (it makes a plain Agent that
      // dials with net): a stream of its own, such as the image event stream that keeps image facts between
      // checks (docs/performance.md#image-facts-between-runs), needs an agent that opens tunnel streams.
      const own = new (httpModule().Agent)({ keepAlive: false });
      own.createConnection = tunnelConnection(endpoint.connect);
      this.#ownAgent = own;
    }
  }

  /** Sends one call; resolves with the response once its status is 2xx, rejects with EngineError otherwise (304 included: already started or stopped). */
  open(method: string, path: string, options: EngineCallOptions = {}): Promise<http.IncomingMessage> {
    const { endpoint, version } = this.#options;
    const body = options.raw?.body ?? (options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body)));
    const headers: Record<string, string | number> = { ...options.headers };
    if (body) {
      headers['content-type'] = options.raw?.contentType ?? 'application/json';
      headers['content-length'] = body.length;
    } else if (options.stream) {
      headers['content-type'] = options.stream.contentType;
    }
    const requestOptions: https.RequestOptions = {
      method,
      path: `${version ? `/${version}` : ''}${path}${queryString(options.query)}`,
      headers,
      signal: options.signal,
      agent: options.agent === false ? (this.#ownAgent ?? false) : this.#agent,
      ...(endpoint.kind === 'socket'
        ? { socketPath: endpoint.socketPath }
        : endpoint.kind === 'tunnel'
          ? { host: 'docker' }
          : endpoint.kind === 'tcp'
            ? { host: endpoint.host, port: endpoint.port }
            : {}),
      ...(options.agent === false ? this.#options.tls : {}),
    };
    return new Promise((resolve, reject) => {
      const request = this.#client.request(requestOptions, (response) => {
        const status = response.statusCode ?? 0;
        // Success, or 304 (already started or stopped). An error status (a socket proxy's refusal, `/swarm` on an
        // engine outside a swarm) neither vouches for the engine nor counts against it: it did answer.
        if ((status >= 200 && status < 300) || status === 304) this.#answeredAt = Date.now();
        if (status >= 200 && status < 300) resolve(response);
        else engineError(response, method, path).then(reject, reject);
      });
      request.on('error', (err) => {
        this.#answeredAt = undefined;
        reject(err);
      });
      const stream = options.stream?.body;
      if (!stream) {
        request.end(body);
        return;
      }
      // A source that fails (a snapshot whose checksum does not match) aborts the call: the engine never
      // sees the end of the archive and extracts nothing more.
      stream.once('error', (err: Error) => {
        request.destroy(err);
        reject(err);
      });
      stream.pipe(request);
    });
  }

  /**
   * True when the engine answered a call with success within the last `ms` and none failed to reach it since: readiness
   * then needs no ping of its own (engine/connect.ts).
   */
  answeredWithin(ms: number): boolean {
    return this.#answeredAt !== undefined && Date.now() - this.#answeredAt <= ms;
  }

  /** One call with a JSON answer (undefined for an empty body: 204, 304). */
  async request<T>(method: string, path: string, options: EngineCallOptions = {}): Promise<T> {
    const response = await this.open(method, path, options);
    const text = (await readBody(response)).toString('utf8');
    return (text ? (parseJson(text) ?? text) : undefined) as T;
  }

  close(): void {
    this.#agent.destroy();
    this.#ownAgent?.destroy();
    this.#tunnel?.close();
  }
}
