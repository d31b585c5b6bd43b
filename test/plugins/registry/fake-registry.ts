// A scriptable stand-in for a registry and its token server on 127.0.0.1, for unit tests of protocol
// paths the real Distribution registry cannot be made to take (HEAD without a digest, odd challenges,
// token grants). Integration tests use the real registry.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoopbackHttpServer } from '../../helpers/loopback-server.js';

export interface FakeManifest {
  body: string;
  mediaType: string;
}

export interface LoggedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  accept: string | undefined;
}

export interface FakeRegistryOptions {
  /** How /v2/ and unauthorized requests are challenged. */
  auth?: 'none' | 'basic' | 'bearer';
  /** Basic credentials accepted (registry for `basic`, token server for `bearer`). */
  user?: string;
  password?: string;
  /** HEAD answers without Docker-Content-Digest. */
  headWithoutDigest?: boolean;
  /** HEAD answers 405. */
  headNotAllowed?: boolean;
  /** Repositories each issued token grants (besides the scopes requested); `*` grants every requested. */
  grantExtra?: string[];
  /** Token lifetime (expires_in), seconds. */
  tokenLifetime?: number;
  /** Omit `scope` from the challenge of 401s on manifests. */
  noScopeInChallenge?: boolean;
  /** Delay before answering manifest requests, ms. */
  delayMs?: number;
  /** Answers a request itself when it returns true (redirects, rate limits, odd registries). */
  override?: (req: IncomingMessage, res: ServerResponse, url: URL) => boolean;
}

export function digestOf(body: string): string {
  return `sha256:${createHash('sha256').update(body).digest('hex')}`;
}

export function manifestFor(tag: string): FakeManifest {
  return {
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    body: JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: digestOf(tag), size: 2 },
      layers: [],
    }),
  };
}

function jwt(access: { type: string; name: string; actions: string[] }[]): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ access, n: Math.random() })}.sig`;
}

export class FakeRegistry extends LoopbackHttpServer {
  readonly requests: LoggedRequest[] = [];
  readonly tokensIssued: string[] = [];
  /** `repo:tag` or `repo@digest` → manifest. */
  readonly manifests = new Map<string, FakeManifest>();
  options: FakeRegistryOptions;
  #valid = new Map<string, Set<string>>(); // token → repos it grants

  constructor(options: FakeRegistryOptions = {}) {
    super();
    this.options = options;
  }

  /** Publishes `body` under `repo:tag` (and `repo@digest`); returns its digest. */
  push(repo: string, tag: string, manifest: FakeManifest = manifestFor(`${repo}:${tag}:${Math.random()}`)): string {
    const digest = digestOf(manifest.body);
    this.manifests.set(`${repo}:${tag}`, manifest);
    this.manifests.set(`${repo}@${digest}`, manifest);
    return digest;
  }

  count(filter: (r: LoggedRequest) => boolean): number {
    return this.requests.filter(filter).length;
  }

  manifestRequests(): number {
    return this.count((r) => r.path.includes('/manifests/'));
  }

  #challenge(scope?: string): string {
    if (this.options.auth === 'basic') return 'Basic realm="fake"';
    const scopePart = scope && !this.options.noScopeInChallenge ? `,scope="${scope}"` : '';
    return `Bearer realm="http://${this.host}/token",service="fake-registry"${scopePart}`;
  }

  #basicOk(authorization: string | undefined): boolean {
    const expected = `Basic ${Buffer.from(`${this.options.user}:${this.options.password}`).toString('base64')}`;
    return authorization === expected;
  }

  #authorized(authorization: string | undefined, repo: string): boolean {
    if (!this.options.auth || this.options.auth === 'none') return true;
    if (this.options.auth === 'basic') return this.#basicOk(authorization);
    if (!authorization?.startsWith('Bearer ')) return false;
    return this.#valid.get(authorization.slice(7))?.has(repo) ?? false;
  }

  /** Requests being answered right now, and the most at once. */
  inFlight = 0;
  maxInFlight = 0;

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `http://${this.host}`);
    this.requests.push({
      method: req.method ?? 'GET',
      path: url.pathname + url.search,
      authorization: req.headers.authorization,
      accept: req.headers.accept,
    });
    if (this.options.override?.(req, res, url)) return;
    const delay = this.options.delayMs;
    if (delay && url.pathname.includes('/manifests/')) {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      setTimeout(() => {
        this.inFlight--;
        this.#answer(req, res, url);
      }, delay);
      return;
    }
    this.#answer(req, res, url);
  }

  #answer(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (url.pathname === '/token') return this.#token(req, res, url);
    if (url.pathname === '/v2/' || url.pathname === '/v2') {
      if (this.options.auth && this.options.auth !== 'none') {
        res.writeHead(401, { 'www-authenticate': this.#challenge() }).end();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
      return;
    }
    const m = /^\/v2\/(.+)\/manifests\/([^/]+)$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404).end();
      return;
    }
    const [, repo, reference] = m as unknown as [string, string, string];
    if (!this.#authorized(req.headers.authorization, repo)) {
      res.writeHead(401, { 'www-authenticate': this.#challenge(`repository:${repo}:pull`) }).end();
      return;
    }
    const key = reference.startsWith('sha256:') ? `${repo}@${reference}` : `${repo}:${reference}`;
    const manifest = this.manifests.get(key);
    if (!manifest) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(req.method === 'HEAD' ? undefined : '{"errors":[{"code":"MANIFEST_UNKNOWN"}]}');
      return;
    }
    if (req.method === 'HEAD' && this.options.headNotAllowed) {
      res.writeHead(405).end();
      return;
    }
    const headers: Record<string, string | number> = {
      'content-type': manifest.mediaType,
      'content-length': Buffer.byteLength(manifest.body),
    };
    if (!(req.method === 'HEAD' && this.options.headWithoutDigest)) headers['docker-content-digest'] = digestOf(manifest.body);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : manifest.body);
  }

  #token(req: IncomingMessage, res: ServerResponse, url: URL): void {
    if (this.options.user !== undefined && !this.#basicOk(req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"bad credentials"}');
      return;
    }
    const repos = new Set<string>();
    for (const scope of url.searchParams.getAll('scope')) {
      const parts = scope.split(':');
      if (parts[0] === 'repository' && parts.length >= 3) repos.add(parts.slice(1, -1).join(':'));
    }
    for (const extra of this.options.grantExtra ?? []) repos.add(extra);
    const token = jwt([...repos].map((name) => ({ type: 'repository', name, actions: ['pull'] })));
    this.#valid.set(token, repos);
    this.tokensIssued.push(url.searchParams.getAll('scope').join(' '));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token, expires_in: this.options.tokenLifetime ?? 300, issued_at: new Date().toISOString() }));
  }
}
