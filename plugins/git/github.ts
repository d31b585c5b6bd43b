// Head resolution for github.com repositories through GitHub's REST API with @octokit/core:
//   GET /repos/{owner}/{repo}                 → default_branch (when the label names no ref)
//   GET /repos/{owner}/{repo}/commits/{ref}   → the commit, as the bare SHA (media type `sha`)
// Both are conditional: the ETag of the last answer is kept across runs and sent as If-None-Match,
// so an unchanged ref answers 304, which GitHub does not count against the rate limit.
import { TidewatchError } from '../../core/index.js';
import { Octokit } from '@octokit/core';
import { fetch as undiciFetch } from 'undici';
import type { Logger } from '../../core/index.js';
import { BoundedCache } from './bounded-cache.js';
import { describeRequestError, requestSignal } from './http-body.js';
import { RateLimitGate, RateLimitedError, type HeaderBag } from './rate-limit.js';
import { RefNotFoundError } from './refs.js';
import type { GitHubRepo } from './repo-url.js';

export interface GitHubClientOptions {
  /** API root; `https://api.github.com` for github.com, a loopback fake in tests. */
  readonly baseUrl: string;
  readonly token?: string;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Clock for the rate-limit gate (tests). */
  readonly now?: () => number;
}

interface Conditional {
  readonly etag: string;
  readonly value: unknown;
}

/** The shape of octokit's RequestError, read without importing its package. */
interface HttpErrorLike {
  readonly name: string;
  readonly status: number;
  readonly message: string;
  readonly response?: { readonly headers: HeaderBag; readonly data?: unknown };
  readonly cause?: unknown;
}

function isHttpError(err: unknown): err is HttpErrorLike {
  return err instanceof Error && err.name === 'HttpError' && typeof (err as { status?: unknown }).status === 'number';
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const SHA_MEDIA_TYPE = 'application/vnd.github.sha';
const CACHE_ENTRIES = 2000;

/** The commit id in a `commits/{ref}` answer: bare text for the sha media type, `.sha` for JSON. */
function shaOf(data: unknown): string {
  let text: unknown = data;
  if (data instanceof ArrayBuffer) text = Buffer.from(data).toString('utf8');
  else if (typeof data === 'object' && data !== null && 'sha' in data) text = (data as { sha: unknown }).sha;
  const sha = typeof text === 'string' ? text.trim().toLowerCase() : '';
  if (!SHA.test(sha)) throw new TidewatchError('TW_ERR_GIT', 'GitHub answered without a commit id', 502);
  return sha;
}

function defaultBranchOf(data: unknown): string {
  const branch = typeof data === 'object' && data !== null ? (data as { default_branch?: unknown }).default_branch : undefined;
  if (typeof branch !== 'string' || branch === '') throw new TidewatchError('TW_ERR_GIT', 'GitHub answered without a default branch', 502);
  return branch;
}

/**
 * The `{ref}` forms to try. GitHub takes `heads/<branch>` and `tags/<tag>`; a bare name is tried as a
 * branch first, then as a tag (the same order as the smart-HTTP path), a full `refs/…` name as given.
 */
export function githubRefCandidates(ref: string): string[] {
  if (ref === 'HEAD') return [ref];
  if (ref.startsWith('refs/')) return [ref.slice('refs/'.length)];
  return [`heads/${ref}`, `tags/${ref}`];
}

export class GitHubClient {
  readonly #octokit: Octokit;
  readonly #gate: RateLimitGate;
  readonly #timeoutMs: number;
  /** Last ETag and value per request, across runs. */
  readonly #etags = new BoundedCache<string, Conditional>(CACHE_ENTRIES);
  /** Which candidate form resolved a bare ref last time, so a tag costs one request, not two. */
  readonly #forms = new BoundedCache<string, string>(CACHE_ENTRIES);
  /**
   * Requests go out one at a time: GitHub asks clients to make requests serially, not
   * concurrently, to stay clear of secondary limits; and once one answer closes the rate-limit
   * gate, the requests queued behind it fail without being sent.
   */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: GitHubClientOptions) {
    const logger = options.logger;
    this.#timeoutMs = options.timeoutMs;
    this.#gate = new RateLimitGate(options.now);
    this.#octokit = new Octokit({
      ...(options.token ? { auth: options.token } : {}),
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      userAgent: 'tidewatch',
      // octokit's debug line carries the request options, Authorization included: never log it.
      // Its request log reports every non-2xx (each 304 included) at error level: those are one
      // trace line per request here; real failures are reported per target by the source.
      log: {
        debug: () => {},
        info: (msg: string) => logger.trace({ github: msg }, 'GitHub API request'),
        warn: (msg: string) => logger.warn({ github: msg }, 'GitHub API warning'),
        error: (msg: string) => logger.trace({ github: msg }, 'GitHub API request'),
      },
      // undici 7's fetch, the same client the smart-HTTP path uses (octokit defaults to the global one).
      request: { fetch: undiciFetch as unknown as typeof globalThis.fetch },
    });
  }

  async defaultBranch(repo: GitHubRepo, signal: AbortSignal): Promise<string> {
    const value = await this.#conditional(
      `repo:${repo.key}`,
      'GET /repos/{owner}/{repo}',
      { owner: repo.owner, repo: repo.name },
      'application/vnd.github+json',
      defaultBranchOf,
      signal,
    );
    if (value === undefined) {
      throw new TidewatchError('TW_ERR_GIT', `GitHub repository ${repo.owner}/${repo.name} not found (or not accessible with the configured token)`, 502);
    }
    return value;
  }

  /** The head commit of `ref`; throws RefNotFoundError when no form of it exists. */
  async head(repo: GitHubRepo, ref: string, signal: AbortSignal): Promise<string> {
    const formKey = `${repo.key}#${ref}`;
    const candidates = githubRefCandidates(ref);
    const remembered = this.#forms.get(formKey);
    if (remembered) candidates.sort((a, b) => (a === remembered ? -1 : b === remembered ? 1 : 0));
    for (const candidate of candidates) {
      const sha = await this.#conditional(
        `commit:${repo.key}#${candidate}`,
        'GET /repos/{owner}/{repo}/commits/{ref}',
        { owner: repo.owner, repo: repo.name, ref: candidate },
        SHA_MEDIA_TYPE,
        shaOf,
        signal,
      );
      if (sha !== undefined) {
        if (candidates.length > 1) this.#forms.set(formKey, candidate);
        return sha;
      }
    }
    throw new RefNotFoundError(
      `ref ${JSON.stringify(ref)} not found in GitHub repository ${repo.owner}/${repo.name} (or the repository is not accessible)`,
    );
  }

  /**
   * Any JSON GET of the REST API for another plugin (the GITHUB_API service, docs/plugins.md#services): the
   * same token, API root, serial queue, rate-limit gate and ETag cache as the Git source's own requests.
   * `extract` bounds what is kept; a 304 answers from the value it made last time.
   */
  get<T>(route: string, params: Readonly<Record<string, string | number>>, extract: (data: unknown) => T, signal: AbortSignal): Promise<T | undefined> {
    const key = `get:${route}:${Object.entries(params).map(([k, v]) => `${k}=${v}`).join('&')}`;
    return this.#conditional(key, route, params, 'application/vnd.github+json', extract, signal);
  }

  /**
   * One conditional GET. Returns the extracted value (from the cache on 304), undefined for 404/422
   * (the ref or repository does not exist), and throws for everything else, rate limits included.
   */
  async #conditional<T>(
    cacheKey: string,
    route: string,
    params: Readonly<Record<string, string | number>>,
    accept: string,
    extract: (data: unknown) => T,
    runSignal: AbortSignal,
  ): Promise<T | undefined> {
    const run = this.#queue.then(() => this.#send(cacheKey, route, params, accept, extract, runSignal));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #send<T>(
    cacheKey: string,
    route: string,
    params: Readonly<Record<string, string | number>>,
    accept: string,
    extract: (data: unknown) => T,
    runSignal: AbortSignal,
  ): Promise<T | undefined> {
    runSignal.throwIfAborted();
    this.#gate.check();
    const cached = this.#etags.get(cacheKey);
    // The REST API version GitHub documents answers against (docs.github.com, "API Versions").
    const headers: Record<string, string> = { accept, 'x-github-api-version': '2022-11-28' };
    if (cached) headers['if-none-match'] = cached.etag;
    try {
      const response = await this.#octokit.request(route, {
        ...params,
        headers,
        request: { signal: requestSignal(runSignal, this.#timeoutMs) },
      });
      this.#gate.observe(response.status, response.headers as HeaderBag);
      const value = extract(response.data as unknown);
      const etag = response.headers.etag;
      if (typeof etag === 'string' && etag) this.#etags.set(cacheKey, { etag, value });
      return value;
    } catch (err) {
      if (!isHttpError(err) || !err.response) {
        if (err instanceof RateLimitedError) throw err;
        const cause = isHttpError(err) && err.cause !== undefined ? err.cause : err;
        throw new TidewatchError('TW_ERR_GIT', `GitHub API request failed: ${describeRequestError(cause, this.#timeoutMs)}`, 502, { cause: err });
      }
      const status = err.status;
      if (this.#gate.observe(status, err.response.headers, err.message)) {
        throw new RateLimitedError(this.#gate.blockedUntil ?? new Date());
      }
      if (status === 304 && cached) return cached.value as T;
      if (status === 404 || status === 422) return undefined;
      if (status === 401) throw new TidewatchError('TW_ERR_GIT', 'GitHub API: HTTP 401 (bad credentials: check the git token)', 502);
      throw new TidewatchError('TW_ERR_GIT', `GitHub API: HTTP ${status} (${err.message})`, 502);
    }
  }
}
