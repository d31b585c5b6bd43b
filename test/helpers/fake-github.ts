// A loopback server that answers the two GitHub REST endpoints the Git source uses, as GitHub
// documents them (docs.github.com/rest: "Get a repository", "Get a commit", "Rate limits", "Best
// practices: conditional requests"):
//   GET /repos/{owner}/{repo}               JSON with `default_branch`
//   GET /repos/{owner}/{repo}/commits/{ref} JSON commit, or the bare SHA for `application/vnd.github.sha`
//   GET /repos/{owner}/{repo}/releases      "List releases": newest first, `per_page` (default 30, at most
//                                           100) and `page`, a `Link` header with rel="next"/"last"
// Every response carries the `x-ratelimit-*` headers; ETags are sent and a matching If-None-Match
// answers 304, which, like GitHub, costs nothing; every other answer (200, 404, 422) spends the budget. When the budget is
// spent the answer is 403 (or 429) with `x-ratelimit-remaining: 0`. Every request is recorded.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, listenOnLoopback } from './loopback-server.js';

export interface FakeRepoState {
  defaultBranch: string;
  /** Branch name → commit id. */
  branches: Record<string, string>;
  /** Tag name → commit id (GitHub peels annotated tags in `commits/{ref}`). */
  tags: Record<string, string>;
  /** Visible only to requests with the configured token. */
  private?: boolean;
}

export interface FakeGitHubOptions {
  /** Requests per window (default 60, GitHub's unauthenticated limit). */
  readonly limit?: number;
  /** Seconds until the window resets (default 3600). */
  readonly windowSeconds?: number;
  /** When set, `Authorization: token|Bearer <token>` is checked; a wrong token answers 401. */
  readonly token?: string;
  /** Status of an exhausted-limit answer (default 403, as GitHub's primary limit). */
  readonly exhaustedStatus?: 403 | 429;
  /** `retry-after` seconds sent with the exhausted answer (secondary-limit style), if any. */
  readonly retryAfter?: number;
}

/** A release as "List releases" returns it (only the fields Tidewatch reads, plus a few others). */
export interface FakeRelease {
  tag_name: string;
  name?: string;
  body?: string;
  published_at?: string;
  draft?: boolean;
  prerelease?: boolean;
}

export interface FakeGitHubRequest {
  readonly method: string;
  readonly path: string;
  /** The query string, without `?` (`per_page=30&page=1`). */
  readonly query: string;
  /** The `X-GitHub-Api-Version` header, when sent. */
  readonly apiVersion?: string;
  readonly accept?: string;
  readonly ifNoneMatch?: string;
  readonly authorization?: string;
  status: number;
}

const SHA_TYPES = new Set(['application/vnd.github.sha', 'application/vnd.github.v3.sha']);
const DOCS = 'https://docs.github.com/rest';

export class FakeGitHub {
  readonly url: string;
  readonly requests: FakeGitHubRequest[] = [];
  readonly #server: Server;
  readonly #options: FakeGitHubOptions;
  readonly #repos = new Map<string, FakeRepoState & { owner: string; name: string; id: number }>();
  readonly #releases = new Map<string, FakeRelease[]>();
  #remaining: number;
  #reset: number;

  private constructor(server: Server, options: FakeGitHubOptions) {
    this.#server = server;
    this.#options = options;
    this.#remaining = options.limit ?? 60;
    this.#reset = Math.floor(Date.now() / 1000) + (options.windowSeconds ?? 3600);
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  static async start(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
    let self: FakeGitHub | undefined;
    const server = createServer((req, res) => self?.handle(req, res));
    await listenOnLoopback(server);
    self = new FakeGitHub(server, options);
    return self;
  }

  setRepo(owner: string, name: string, state: Partial<FakeRepoState> & { branches: Record<string, string> }): void {
    const key = `${owner}/${name}`.toLowerCase();
    const defaultBranch = state.defaultBranch ?? Object.keys(state.branches)[0] ?? 'main';
    this.#repos.set(key, {
      owner,
      name,
      id: this.#repos.get(key)?.id ?? this.#repos.size + 1,
      defaultBranch,
      branches: { ...state.branches },
      tags: { ...(state.tags ?? {}) },
      ...(state.private ? { private: true } : {}),
    });
  }

  /** The repository's releases, newest first (as GitHub lists them). */
  setReleases(owner: string, name: string, releases: FakeRelease[]): void {
    this.#releases.set(`${owner}/${name}`.toLowerCase(), releases.map((r) => ({ ...r })));
  }

  /** Moves a branch, as a push would. */
  setBranch(owner: string, name: string, branch: string, sha: string): void {
    const repo = this.#repos.get(`${owner}/${name}`.toLowerCase());
    if (!repo) throw new Error(`no repo ${owner}/${name}`);
    repo.branches[branch] = sha;
  }

  get remaining(): number {
    return this.#remaining;
  }

  /** Sets the budget left in the current window (0 exhausts it). */
  setRemaining(n: number, resetInSeconds?: number): void {
    this.#remaining = n;
    if (resetInSeconds !== undefined) this.#reset = Math.floor(Date.now() / 1000) + resetInSeconds;
  }

  count(filter: { path?: string | RegExp; status?: number } = {}): number {
    return this.requests.filter(
      (r) =>
        (filter.status === undefined || r.status === filter.status) &&
        (filter.path === undefined ||
          (typeof filter.path === 'string' ? r.path === filter.path : filter.path.test(r.path))),
    ).length;
  }

  resetRequests(): void {
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    await closeServer(this.#server);
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const record: FakeGitHubRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search.replace(/^\?/, ''),
      status: 0,
      ...(typeof req.headers['x-github-api-version'] === 'string' ? { apiVersion: req.headers['x-github-api-version'] } : {}),
      ...(req.headers.accept ? { accept: req.headers.accept } : {}),
      ...(typeof req.headers['if-none-match'] === 'string' ? { ifNoneMatch: req.headers['if-none-match'] } : {}),
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    };
    this.requests.push(record);
    const send = (status: number, body: string | object | undefined, headers: Record<string, string> = {}) => {
      record.status = status;
      const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
      const type = typeof body === 'object' ? { 'content-type': 'application/json; charset=utf-8' } : {};
      res.writeHead(status, { ...this.#rateHeaders(), ...type, ...headers });
      res.end(status === 304 ? undefined : text);
    };

    if (Date.now() / 1000 >= this.#reset) {
      this.#remaining = this.#options.limit ?? 60;
      this.#reset = Math.floor(Date.now() / 1000) + (this.#options.windowSeconds ?? 3600);
    }
    const authorized = this.#checkToken(req.headers.authorization);
    if (authorized === false) return send(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
    if (this.#remaining <= 0) {
      const extra: Record<string, string> = this.#options.retryAfter !== undefined ? { 'retry-after': String(this.#options.retryAfter) } : {};
      return send(
        this.#options.exhaustedStatus ?? 403,
        { message: `API rate limit exceeded for 127.0.0.1.`, documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api` },
        extra,
      );
    }
    if (req.method !== 'GET') return send(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });

    // /repos/{owner}/{repo}[/commits/{ref}]; the ref may hold encoded (%2F) or plain slashes.
    const parts = url.pathname.split('/').slice(1).map((p) => decodeURIComponent(p));
    if (parts[0] !== 'repos' || parts.length < 3) return send(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
    const repo = this.#repos.get(`${parts[1]}/${parts[2]}`.toLowerCase());
    if (!repo || (repo.private && authorized !== true)) {
      // GitHub counts a 404 like any answer but a 304: asking again for a missing repository spends the limit.
      this.#remaining -= 1;
      return send(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
    }
    if (parts.length === 3) {
      const body = {
        id: repo.id,
        name: repo.name,
        full_name: `${repo.owner}/${repo.name}`,
        private: repo.private ?? false,
        owner: { login: repo.owner, type: 'User' },
        html_url: `https://github.com/${repo.owner}/${repo.name}`,
        default_branch: repo.defaultBranch,
      };
      return this.#conditional(req, send, JSON.stringify(body), 'application/json; charset=utf-8', weakEtag(body));
    }
    if (parts[3] === 'releases' && parts.length === 4) return this.#listReleases(req, url, repo, send);
    if (parts[3] !== 'commits' || parts.length < 5) return send(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });
    const ref = parts.slice(4).join('/');
    const sha = resolve(repo, ref);
    if (!sha) {
      this.#remaining -= 1;
      return send(422, { message: `No commit found for SHA: ${ref}`, documentation_url: DOCS, status: '422' });
    }
    const accept = (req.headers.accept ?? '').split(',').map((a) => a.split(';')[0]?.trim() ?? '');
    if (accept.some((a) => SHA_TYPES.has(a))) {
      // GitHub documents the sha media type's ETag as the SHA itself, so a client may send its own.
      return this.#conditional(req, send, sha, 'application/vnd.github.sha; charset=utf-8', `"${sha}"`);
    }
    const body = {
      sha,
      node_id: `C_${sha.slice(0, 12)}`,
      commit: { message: `commit ${sha.slice(0, 7)}`, tree: { sha: '0'.repeat(40) } },
      html_url: `https://github.com/${repo.owner}/${repo.name}/commit/${sha}`,
      parents: [],
    };
    return this.#conditional(req, send, JSON.stringify(body), 'application/json; charset=utf-8', weakEtag(body));
  }

  /** "List releases": one page, with GitHub's Link header to the next and last pages. */
  #listReleases(
    req: IncomingMessage,
    url: URL,
    repo: { owner: string; name: string },
    send: (status: number, body: string | object | undefined, headers?: Record<string, string>) => void,
  ): void {
    const all = this.#releases.get(`${repo.owner}/${repo.name}`.toLowerCase()) ?? [];
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30) || 30));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
    const last = Math.max(1, Math.ceil(all.length / perPage));
    const body = all.slice((page - 1) * perPage, page * perPage).map((r, i) => ({
      url: `${this.url}/repos/${repo.owner}/${repo.name}/releases/${i + 1}`,
      html_url: `https://github.com/${repo.owner}/${repo.name}/releases/tag/${r.tag_name}`,
      id: (page - 1) * perPage + i + 1,
      tag_name: r.tag_name,
      target_commitish: 'main',
      name: r.name ?? r.tag_name,
      draft: r.draft ?? false,
      prerelease: r.prerelease ?? false,
      created_at: r.published_at ?? '2026-01-01T00:00:00Z',
      published_at: r.published_at ?? '2026-01-01T00:00:00Z',
      author: { login: repo.owner },
      assets: [],
      body: r.body ?? null,
    }));
    const link = (p: number, rel: string) => `<${this.url}${url.pathname}?per_page=${perPage}&page=${p}>; rel="${rel}"`;
    const links = [...(page < last ? [link(page + 1, 'next'), link(last, 'last')] : []), ...(page > 1 ? [link(1, 'first'), link(page - 1, 'prev')] : [])];
    const text = JSON.stringify(body);
    this.#conditional(req, send, text, 'application/json; charset=utf-8', weakEtag(body), links.length > 0 ? { link: links.join(', ') } : {});
  }

  /** 304 when If-None-Match names the current ETag (free); otherwise 200, which spends one request. */
  #conditional(
    req: IncomingMessage,
    send: (status: number, body: string | object | undefined, headers?: Record<string, string>) => void,
    body: string,
    type: string,
    etag: string,
    extra: Record<string, string> = {},
  ): void {
    const tags = (req.headers['if-none-match'] ?? '').split(',').map((t) => t.trim().replace(/^W\//, ''));
    if (tags.includes(etag.replace(/^W\//, ''))) return send(304, undefined, { etag, ...extra });
    this.#remaining -= 1;
    return send(200, body, { 'content-type': type, etag, ...extra });
  }

  /** true: valid token; undefined: anonymous; false: a token that is wrong. */
  #checkToken(header: string | undefined): boolean | undefined {
    if (!header) return undefined;
    const token = header.replace(/^(token|bearer)\s+/i, '');
    if (this.#options.token === undefined) return undefined;
    return token === this.#options.token;
  }

  #rateHeaders(): Record<string, string> {
    const limit = this.#options.limit ?? 60;
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, this.#remaining)),
      'x-ratelimit-reset': String(this.#reset),
      'x-ratelimit-used': String(limit - Math.max(0, this.#remaining)),
      'x-ratelimit-resource': 'core',
      'x-github-api-version-selected': '2022-11-28',
    };
  }
}

function weakEtag(body: object): string {
  return `W/"${createHash('sha256').update(JSON.stringify(body)).digest('hex')}"`;
}

/** `heads/x`, `tags/x`, a bare name (branch, then tag), or a full commit id. */
function resolve(repo: FakeRepoState, ref: string): string | undefined {
  const plain = ref.replace(/^refs\//, '');
  if (plain.startsWith('heads/')) return repo.branches[plain.slice(6)];
  if (plain.startsWith('tags/')) return repo.tags[plain.slice(5)];
  if (plain === 'HEAD') return repo.branches[repo.defaultBranch];
  const known = [...Object.values(repo.branches), ...Object.values(repo.tags)];
  return repo.branches[plain] ?? repo.tags[plain] ?? known.find((sha) => sha === plain.toLowerCase());
}
