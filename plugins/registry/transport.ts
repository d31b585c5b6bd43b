// Every HTTP exchange with registries and token servers goes through here: keep-alive agents shared
// by the whole plugin, a global bound on requests in flight, a timeout per request, redirects followed
// by hand (so credentials never leak to another origin: a request carrying one in its body or for its
// origin alone is refused a cross-origin redirect, any other loses its Authorization there), and one `registry_request` event per request
// for the metrics. It is Node's own http/https: undici closes its connection after every HEAD whose
// answer does not say `Connection: keep-alive` (registries speaking HTTP/1.1 never do), so every check
// connected again for each of its manifest requests (docs/performance.md).
import type http from 'node:http';
import type https from 'node:https';
import { TidewatchError } from '../../core/index.js';
import { Limiter } from './limiter.js';
import { RateLimitError, RateLimiter, isRateLimited, type RateLimitOptions } from './rate-limit.js';
import { RequestCut, cutOnAbort } from './request-cut.js';

export type HeaderMap = Readonly<Record<string, string | string[] | undefined>>;

export interface RegistryRequest {
  /** The registry the request is for (metric label): `docker.io`, `127.0.0.1:5101`. */
  readonly registry: string;
  readonly url: URL;
  readonly method: 'GET' | 'HEAD' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * The headers hold a credential meant for this origin alone (Basic credentials to a token server): a redirect
   * to another origin is refused, as it always is for a request with a body (a refresh token travels there).
   */
  readonly carriesCredential?: boolean;
  readonly signal?: AbortSignal;
  /** Largest successful body accepted (default 1 MiB, a manifest's cap). */
  readonly maxBodyBytes?: number;
}

export interface RegistryReply {
  readonly status: number;
  readonly headers: HeaderMap;
  /** Empty for HEAD. Error bodies are truncated to 64 KiB. */
  readonly body: Buffer;
  /** The URL that answered, after redirects. */
  readonly url: URL;
}

export interface TransportOptions {
  readonly concurrency: number;
  readonly timeoutMs: number;
  readonly tlsSkip: boolean;
  /** Oldest TLS version accepted (Node's `minVersion`); Node's default when absent. */
  readonly tlsMinVersion?: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  readonly userAgent?: string;
  readonly rateLimits?: RateLimitOptions;
  readonly onRequest?: (event: { registry: string; method: string; code: string }) => void;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;
const ERROR_BODY_BYTES = 64 * 1024;
export const MANIFEST_MAX_BYTES = 1024 * 1024;

/** A registry request that failed, with the HTTP status when there was an answer. */
export class RegistryError extends TidewatchError {
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super('TW_ERR_REGISTRY', message, 502);
    this.name = 'RegistryError';
    this.status = status;
  }
}

export function header(headers: HeaderMap, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The answer's body, at most `max` bytes (cut there when `truncate`, refused otherwise). Read with
 * the stream's events: an async iterator per answer cost more than the HEAD it read (docs/performance.md).
 */
function readBody(body: http.IncomingMessage, max: number, truncate: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) {
        chunks.push(chunk);
        return;
      }
      body.off('data', onData);
      body.destroy();
      if (!truncate) return reject(new RegistryError(`response larger than ${max} bytes`));
      chunks.push(chunk.subarray(0, chunk.length - (size - max)));
      resolve(Buffer.concat(chunks));
    };
    body.on('data', onData);
    body.once('end', () => resolve(Buffer.concat(chunks)));
    body.once('error', reject);
    body.once('close', () => {
      if (!body.complete) reject(new Error('the connection closed before the answer was complete'));
    });
  });
}

interface Response {
  readonly statusCode: number;
  readonly headers: HeaderMap;
  readonly body: http.IncomingMessage;
}

/**
 * Node's http through `process.getBuiltinModule`, not an ES import: importing node:http as a module reads
 * its lazy `WebSocket` getter, which loads Node's bundled fetch and WebSocket client (undici, with tls,
 * http2 and zlib), about 13 MB of an idle process (docs/performance.md#memory).
 */
function httpModule(): typeof http {
  return process.getBuiltinModule('node:http');
}

function httpsModule(): typeof https {
  return process.getBuiltinModule('node:https');
}

export class RegistryTransport {
  readonly #agents: { http?: http.Agent; https?: https.Agent } = {};
  readonly #limiter: Limiter;
  readonly #rate: RateLimiter;
  readonly #options: TransportOptions;

  constructor(options: TransportOptions) {
    this.#options = options;
    this.#limiter = new Limiter(options.concurrency);
    this.#rate = new RateLimiter(options.rateLimits);
  }

  /**
   * The keep-alive agent of the URL's scheme, made with its first request: enough sockets per origin for
   * the whole bound. node:https (and with it TLS) loads only for an https registry.
   */
  #agentFor(url: URL): http.Agent {
    const { concurrency, tlsSkip, tlsMinVersion } = this.#options;
    if (url.protocol === 'https:') {
      return (this.#agents.https ??= new (httpsModule().Agent)({
        keepAlive: true,
        maxSockets: concurrency,
        rejectUnauthorized: !tlsSkip,
        ...(tlsMinVersion === undefined ? {} : { minVersion: tlsMinVersion }),
      }));
    }
    return (this.#agents.http ??= new (httpModule().Agent)({ keepAlive: true, maxSockets: concurrency }));
  }

  /** One request on the agents; resolves with the answer's head, the body left to read. */
  #exchange(url: URL, method: string, headers: Record<string, string>, body: string | undefined, cut: RequestCut): Promise<Response> {
    const client = url.protocol === 'https:' ? httpsModule() : httpModule();
    if (body !== undefined) headers = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    return new Promise((resolve, reject) => {
      const request = client.request(url, { method, headers, agent: this.#agentFor(url) }, (response) =>
        resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: response }),
      );
      request.on('error', reject);
      cut.attach(request);
      request.end(body);
    });
  }

  /** Requests in flight now (tests assert the bound). */
  get active(): number {
    return this.#limiter.active;
  }

  async close(): Promise<void> {
    this.#agents.http?.destroy();
    this.#agents.https?.destroy();
  }

  /** Sends, following redirects; each hop is one request, one limiter slot and one event. */
  async send(req: RegistryRequest): Promise<RegistryReply> {
    let url = req.url;
    let method = req.method;
    let headers: Record<string, string> = { ...req.headers };
    let body = req.body;
    for (let hop = 0; ; hop++) {
      const reply = await this.#politely(req, () => this.#once(req, url, method, headers, body));
      const location = header(reply.headers, 'location');
      if (!REDIRECTS.has(reply.status) || !location) return reply;
      if (hop >= MAX_REDIRECTS) throw new RegistryError(`too many redirects from ${req.url.href}`, reply.status);
      const next = new URL(location, url);
      if (next.origin !== url.origin && (body !== undefined || req.carriesCredential === true)) {
        // A 307/308 re-sends the body and a credential meant for one origin would reach another
        // (docs/security.md#threat-model): refused, never followed.
        throw new RegistryError(
          `refused a redirect from ${url.origin} to ${next.origin}: the request carries credentials for ${url.origin} only`,
          reply.status,
        );
      }
      if (next.origin !== url.origin) {
        // Blob downloads are redirected to storage hosts: they must not see the registry's credentials.
        const { authorization: _dropped, ...rest } = headers;
        headers = rest;
      }
      if (reply.status === 303 && method === 'POST') {
        method = 'GET';
        body = undefined;
      }
      url = next;
    }
  }

  /** One hop, retried while the registry rate-limits it and the request's wait budget allows. */
  async #politely(req: RegistryRequest, exchange: () => Promise<RegistryReply>): Promise<RegistryReply> {
    const deadline = this.#rate.now() + this.#rate.maxWaitMs;
    for (let attempt = 0; ; attempt++) {
      const admission = await this.#rate.admit(req.registry, deadline, req.signal);
      let reply: RegistryReply;
      try {
        reply = await this.#limiter.run(exchange, req.signal);
      } catch (err) {
        this.#rate.abandoned(req.registry, admission);
        throw err;
      }
      if (!isRateLimited(reply)) {
        this.#rate.accepted(req.registry, admission, reply.headers);
        return reply;
      }
      this.#rate.limited(req.registry, admission, reply);
      if (attempt >= this.#rate.maxRetries) {
        throw new RateLimitError(req.registry, undefined, `still HTTP ${reply.status} after ${attempt + 1} attempts`);
      }
    }
  }

  async #once(
    req: RegistryRequest,
    url: URL,
    method: RegistryRequest['method'],
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<RegistryReply> {
    // One guard for the caller's signal and the timeout (request-cut.ts says why not a signal per request).
    const cut = new RequestCut();
    const timer = setTimeout(() => cut.cut('timeout'), this.#options.timeoutMs);
    const unfollow = req.signal ? cutOnAbort(req.signal, cut) : undefined;
    try {
      return await this.#read(req, url, method, headers, body, cut);
    } catch (err) {
      if (req.signal?.aborted) throw req.signal.reason;
      if (cut.why === 'timeout') throw new RegistryError(`${method} ${url.href} timed out after ${this.#options.timeoutMs} ms`);
      throw err;
    } finally {
      clearTimeout(timer);
      unfollow?.();
    }
  }

  async #read(
    req: RegistryRequest,
    url: URL,
    method: RegistryRequest['method'],
    headers: Record<string, string>,
    body: string | undefined,
    cut: RequestCut,
  ): Promise<RegistryReply> {
    const emit = (code: string) => this.#options.onRequest?.({ registry: req.registry, method, code });
    let response: Response;
    try {
      response = await this.#exchange(url, method, { 'user-agent': this.#options.userAgent ?? 'Tidewatch', ...headers }, body, cut);
    } catch (err) {
      emit('error');
      if (cut.why) throw err;
      throw new RegistryError(`${method} ${url.href} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    emit(String(response.statusCode));
    const ok = response.statusCode >= 200 && response.statusCode < 300;
    let data: Buffer;
    try {
      if (method === 'HEAD' || REDIRECTS.has(response.statusCode)) {
        await readBody(response.body, ERROR_BODY_BYTES, true);
        data = Buffer.alloc(0);
      } else {
        data = await readBody(response.body, ok ? (req.maxBodyBytes ?? MANIFEST_MAX_BYTES) : ERROR_BODY_BYTES, !ok);
      }
    } catch (err) {
      if (cut.why) throw err;
      if (err instanceof RegistryError) throw new RegistryError(`${method} ${url.href}: ${err.message}`);
      throw new RegistryError(`${method} ${url.href} failed reading the body: ${err instanceof Error ? err.message : String(err)}`);
    }
    return { status: response.statusCode, headers: response.headers, body: data, url };
  }
}
