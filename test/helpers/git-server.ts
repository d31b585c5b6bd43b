// A real Git smart-HTTP server for tests: a loopback Node HTTP server that runs Debian's
// `git http-backend` as a CGI over bare repositories in a temp dir, with optional Basic auth and a
// log of every request. Repositories are built with git plumbing (no working tree, no network).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeServer, listenOnLoopback } from './loopback-server.js';

export const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

export interface GitServerOptions {
  /** Require Basic auth with these credentials for every request. */
  readonly auth?: { readonly username: string; readonly password: string };
}

export interface GitRequestRecord {
  readonly method: string;
  /** Path without the query, e.g. `/app.git/info/refs`. */
  readonly path: string;
  readonly query: string;
  readonly authorization?: string;
  readonly gitProtocol?: string;
  readonly userAgent?: string;
  status: number;
}

export interface CreateRepoOptions {
  /** Branch the first commits go on; also HEAD unless `defaultBranch` says otherwise (default `main`). */
  readonly branch?: string;
  /** Commits to create on `branch` (default 1). */
  readonly commits?: number;
  readonly defaultBranch?: string;
}

/** Runs git with `args`, optional stdin, in a clean environment; resolves to trimmed stdout. */
export function git(args: readonly string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: { ...cleanGitEnv(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8').trim());
      else reject(new Error(`git ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString('utf8').trim()}`));
    });
    // Commands that never read stdin may exit before it is written: that EPIPE is harmless.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** No user or system config, a fixed identity: results do not depend on the machine. */
function cleanGitEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: tmpdir(),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Tidewatch Test',
    GIT_AUTHOR_EMAIL: 'test@tidewatch.invalid',
    GIT_COMMITTER_NAME: 'Tidewatch Test',
    GIT_COMMITTER_EMAIL: 'test@tidewatch.invalid',
    LANG: 'C',
  };
}

export class GitServer {
  readonly url: string;
  readonly root: string;
  readonly requests: GitRequestRecord[] = [];
  readonly #server: Server;
  readonly #options: GitServerOptions;
  #counter = 0;

  private constructor(server: Server, root: string, options: GitServerOptions) {
    this.#server = server;
    this.root = root;
    this.#options = options;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  static async start(options: GitServerOptions = {}): Promise<GitServer> {
    const root = await mkdtemp(join(tmpdir(), 'tidewatch-git-'));
    let self: GitServer | undefined;
    const server = createServer((req, res) => self?.handle(req, res));
    await listenOnLoopback(server);
    self = new GitServer(server, root, options);
    return self;
  }

  /** The URL a `git.repo` label uses, e.g. `http://127.0.0.1:40123/app.git`. */
  repoUrl(name: string): string {
    return `${this.url}/${name}.git`;
  }

  #dir(name: string): string {
    return join(this.root, `${name}.git`);
  }

  /** Requests whose path starts with `/<name>.git/`. */
  requestsFor(name: string): GitRequestRecord[] {
    return this.requests.filter((r) => r.path.startsWith(`/${name}.git/`));
  }

  resetRequests(): void {
    this.requests.length = 0;
  }

  /** A bare repository with `commits` commits on `branch`; returns their ids, oldest first. */
  async createRepo(name: string, options: CreateRepoOptions = {}): Promise<string[]> {
    const branch = options.branch ?? 'main';
    await git(['init', '--quiet', '--bare', `--initial-branch=${branch}`, this.#dir(name)]);
    const commits: string[] = [];
    for (let i = 0; i < (options.commits ?? 1); i++) commits.push(await this.commit(name, branch));
    if (options.defaultBranch) await this.setDefaultBranch(name, options.defaultBranch);
    return commits;
  }

  /** Adds a commit on top of `branch` (creating the branch if needed), as a push would; returns its id. */
  async commit(name: string, branch = 'main', message?: string): Promise<string> {
    const dir = this.#dir(name);
    const n = ++this.#counter;
    const text = message ?? `commit ${n} on ${branch}`;
    const blob = await git(['hash-object', '-w', '--stdin'], { cwd: dir, input: `${text}\n` });
    const tree = await git(['mktree'], { cwd: dir, input: `100644 blob ${blob}\tREADME\n` });
    const parent = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: dir }).catch(() => '');
    const args = ['commit-tree', tree, '-m', text, ...(parent ? ['-p', parent] : [])];
    const sha = await git(args, { cwd: dir });
    await git(['update-ref', `refs/heads/${branch}`, sha], { cwd: dir });
    return sha;
  }

  /** A lightweight tag (returns the commit) or an annotated one (returns the tag object's id). */
  async tag(name: string, tag: string, target: string, options: { annotated?: boolean } = {}): Promise<string> {
    const dir = this.#dir(name);
    if (!options.annotated) {
      await git(['update-ref', `refs/tags/${tag}`, target], { cwd: dir });
      return target;
    }
    await git(['tag', '-a', tag, target, '-m', `release ${tag}`], { cwd: dir });
    return git(['rev-parse', `refs/tags/${tag}`], { cwd: dir });
  }

  /** Points HEAD (the default branch clients see) at `branch`. */
  async setDefaultBranch(name: string, branch: string): Promise<void> {
    await git(['symbolic-ref', 'HEAD', `refs/heads/${branch}`], { cwd: this.#dir(name) });
  }

  async revParse(name: string, rev: string): Promise<string> {
    return git(['rev-parse', rev], { cwd: this.#dir(name) });
  }

  /** `git ls-remote` through this server: what a real client sees (used to cross-check the plugin). */
  async lsRemote(name: string): Promise<Map<string, string>> {
    const out = await git(['ls-remote', this.repoUrl(name)]);
    const refs = new Map<string, string>();
    for (const line of out.split('\n').filter(Boolean)) {
      const [sha, ref] = line.split('\t');
      if (sha && ref) refs.set(ref, sha);
    }
    return refs;
  }

  async close(): Promise<void> {
    await closeServer(this.#server);
    await rm(this.root, { recursive: true, force: true });
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const record: GitRequestRecord = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search.slice(1),
      status: 0,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(typeof req.headers['git-protocol'] === 'string' ? { gitProtocol: req.headers['git-protocol'] } : {}),
      ...(req.headers['user-agent'] ? { userAgent: req.headers['user-agent'] } : {}),
    };
    this.requests.push(record);
    const user = this.#authenticate(req);
    if (user === null) {
      record.status = 401;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="tidewatch-test"', 'content-type': 'text/plain' });
      res.end('authentication required\n');
      return;
    }
    this.#cgi(req, res, url, user, record);
  }

  /** The user name, '' when no auth is configured, null when the request must be refused. */
  #authenticate(req: IncomingMessage): string | null {
    const auth = this.#options.auth;
    if (!auth) return '';
    const header = req.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return null;
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const [username, password] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
    return colon >= 0 && username === auth.username && password === auth.password ? username : null;
  }

  /** RFC 3875 CGI: request meta-variables in the environment, the body on stdin, headers + body out. */
  #cgi(req: IncomingMessage, res: ServerResponse, url: URL, user: string, record: GitRequestRecord): void {
    const env: NodeJS.ProcessEnv = {
      ...cleanGitEnv(),
      GIT_PROJECT_ROOT: this.root,
      GIT_HTTP_EXPORT_ALL: '1',
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
      SERVER_SOFTWARE: 'tidewatch-test-git-server',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      REMOTE_USER: user,
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      ...(typeof req.headers['git-protocol'] === 'string' ? { GIT_PROTOCOL: req.headers['git-protocol'], HTTP_GIT_PROTOCOL: req.headers['git-protocol'] } : {}),
      ...(typeof req.headers['content-encoding'] === 'string' ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
    };
    const child = spawn(GIT_HTTP_BACKEND, [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => {}); // a GET's backend exits without reading stdin
    req.pipe(child.stdin);
    child.stderr.resume();
    let head = Buffer.alloc(0);
    let headersDone = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = findHeaderEnd(head);
      if (!end) return;
      headersDone = true;
      const { status, headers } = parseCgiHeaders(head.subarray(0, end.at).toString('latin1'));
      record.status = status;
      res.writeHead(status, headers);
      const rest = head.subarray(end.at + end.length);
      if (rest.length) res.write(rest);
    });
    child.on('close', () => {
      if (!headersDone) {
        record.status = 502;
        res.writeHead(502, { 'content-type': 'text/plain' });
      }
      res.end();
    });
    child.on('error', (err) => {
      record.status = 500;
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
  }
}

function findHeaderEnd(buf: Buffer): { at: number; length: number } | undefined {
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return undefined;
}

function parseCgiHeaders(text: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
    else headers[name] = value;
  }
  return { status, headers };
}
