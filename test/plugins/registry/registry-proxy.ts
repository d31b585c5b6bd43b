// A proxy in front of a real registry of the test environment, on 127.0.0.1. It counts every request
// (the proof that something did or did not contact the registry), can inject answers (a 429 storm),
// and can put a Bearer token server in front of the registry: the Distribution registry of the test
// environment only speaks anonymous or htpasswd Basic, so the Bearer flow is this proxy's.
import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { LoopbackHttpServer } from '../../helpers/loopback-server.js';

export interface ProxiedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
}

export interface Injected {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface BearerOptions {
  /** Credentials the token server accepts (Basic); anonymous tokens when unset. */
  user?: string;
  password?: string;
  /** expires_in of issued tokens, seconds (default 300). */
  lifetime?: number;
  service?: string;
}

export interface RegistryProxyOptions {
  /** host:port of the real registry. */
  upstream: string;
  /** Basic credentials the proxy adds towards the upstream (the htpasswd registry). */
  upstreamAuth?: { user: string; password: string };
  bearer?: BearerOptions;
  /** Answers instead of the upstream when it returns something. */
  inject?: (req: ProxiedRequest, index: number) => Injected | undefined;
}

export class RegistryProxy extends LoopbackHttpServer {
  readonly requests: ProxiedRequest[] = [];
  readonly tokenRequests: { scopes: string[]; authorization: string | undefined }[] = [];
  options: RegistryProxyOptions;
  readonly #tokens = new Map<string, { repos: Set<string>; expires: number }>();

  constructor(options: RegistryProxyOptions) {
    super();
    this.options = options;
  }

  count(filter: (r: ProxiedRequest) => boolean = () => true): number {
    return this.requests.filter(filter).length;
  }

  manifestRequests(): number {
    return this.count((r) => r.path.includes('/manifests/'));
  }

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `http://${this.host}`);
    const logged: ProxiedRequest = { method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization };
    const index = this.requests.push(logged) - 1;
    if (this.options.bearer && url.pathname === '/token') return this.#token(req, res, url);
    const injected = this.options.inject?.(logged, index);
    if (injected) {
      res.writeHead(injected.status, injected.headers ?? {});
      res.end(injected.body);
      return;
    }
    if (this.options.bearer && !this.#bearerOk(req, url)) {
      const repo = /^\/v2\/(.+)\/(?:manifests|blobs|tags)\//.exec(url.pathname)?.[1];
      const scope = repo ? `,scope="repository:${repo}:pull"` : '';
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': `Bearer realm="http://${this.host}/token",service="${this.options.bearer.service ?? 'tidewatch-test'}"${scope}`,
      });
      res.end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
      return;
    }
    this.#forward(req, res);
  }

  #bearerOk(req: IncomingMessage, url: URL): boolean {
    const auth = req.headers.authorization;
    if (!auth?.startsWith('Bearer ')) return false;
    const grant = this.#tokens.get(auth.slice(7));
    if (!grant || grant.expires < Date.now()) return false;
    const repo = /^\/v2\/(.+)\/(?:manifests|blobs|tags)\//.exec(url.pathname)?.[1];
    return repo === undefined || grant.repos.has(repo);
  }

  #token(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const bearer = this.options.bearer as BearerOptions;
    const scopes = url.searchParams.getAll('scope');
    this.tokenRequests.push({ scopes, authorization: req.headers.authorization });
    if (bearer.user !== undefined) {
      const expected = `Basic ${Buffer.from(`${bearer.user}:${bearer.password ?? ''}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"incorrect username or password"}');
        return;
      }
    }
    const repos = new Set<string>();
    for (const scope of scopes) {
      const parts = scope.split(':');
      if (parts[0] === 'repository' && parts.length >= 3 && (parts.at(-1) ?? '').split(',').includes('pull')) {
        repos.add(parts.slice(1, -1).join(':'));
      }
    }
    const lifetime = bearer.lifetime ?? 300;
    const token = randomBytes(24).toString('hex'); // opaque: no JWT claims to reuse
    this.#tokens.set(token, { repos, expires: Date.now() + lifetime * 1000 });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token, expires_in: lifetime, issued_at: new Date().toISOString() }));
  }

  #forward(req: IncomingMessage, res: ServerResponse): void {
    const [hostname, port] = this.options.upstream.split(':') as [string, string];
    const headers = { ...req.headers, host: this.options.upstream };
    delete headers.authorization;
    if (this.options.upstreamAuth) {
      const { user, password } = this.options.upstreamAuth;
      headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    }
    const upstream = httpRequest({ hostname, port: Number(port), method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (err) => {
      res.writeHead(502).end(err.message);
    });
    req.pipe(upstream);
  }
}
