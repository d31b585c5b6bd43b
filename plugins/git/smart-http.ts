// Head resolution for any host but github.com: Git's smart-HTTP ref advertisement
// (`GET <repo>/info/refs?service=git-upload-pack`, gitprotocol-http(5)). One request lists every ref
// of the repository, so a run asks once per repository whatever the refs its containers follow.
// Nothing is cloned or fetched: only the advertisement is read.
import { TidewatchError } from '../../core/index.js';
import { fetch } from 'undici';
import { describeRequestError, readLimited, requestSignal } from './http-body.js';
import { parseRefAdvertisement, type RefAdvertisement } from './pkt-line.js';
import type { SmartHttpRepo } from './repo-url.js';

export interface SmartHttpOptions {
  readonly username?: string;
  readonly password?: string;
  /** Sent as the Basic password (with `username`, else `oauth2`) when no password is set. */
  readonly token?: string;
  readonly timeoutMs: number;
  /** Largest advertisement accepted (repositories with many tags advertise a lot). */
  readonly maxBytes?: number;
}

const ADVERTISEMENT_TYPE = 'application/x-git-upload-pack-advertisement';
// Some hosts only speak the smart protocol to clients that look like git.
const USER_AGENT = 'git/2.0 (tidewatch)';
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export class SmartHttpClient {
  readonly #options: SmartHttpOptions;
  /**
   * Origins that asked for credentials: later requests send them at once instead of being
   * challenged again. Configured credentials go out only after a 401 (as git does), so a label
   * naming some other host never receives them unasked.
   */
  readonly #challenged = new Set<string>();

  constructor(options: SmartHttpOptions) {
    this.#options = options;
  }

  /** Credentials for a repository: the URL's own first, then the configured ones. */
  #authorization(repo: SmartHttpRepo): string | undefined {
    if (repo.credentials) return basic(repo.credentials.username, repo.credentials.password);
    const { username, password, token } = this.#options;
    if (password !== undefined && password !== '') return basic(username ?? '', password);
    if (token) return basic(username || 'oauth2', token);
    return undefined;
  }

  /** Fetches and parses the ref advertisement; errors name the status and what it means. */
  async advertisement(repo: SmartHttpRepo, runSignal: AbortSignal): Promise<RefAdvertisement> {
    const url = `${repo.url}/info/refs?service=git-upload-pack`;
    const origin = new URL(url).origin;
    const authorization = this.#authorization(repo);
    // Credentials written into the URL were meant for that host: send them with the first request.
    const eager = authorization !== undefined && (repo.credentials !== undefined || this.#challenged.has(origin));
    let response = await this.#get(url, eager ? authorization : undefined, runSignal);
    let sentCredentials = eager;
    if (response.status === 401 && !eager && authorization) {
      await response.body?.cancel();
      this.#challenged.add(origin);
      response = await this.#get(url, authorization, runSignal);
      sentCredentials = true;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new TidewatchError('TW_ERR_GIT', `GET info/refs: ${describeStatus(response.status, sentCredentials)}`, 502);
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== ADVERTISEMENT_TYPE) {
      await response.body?.cancel();
      throw new TidewatchError('TW_ERR_GIT', `the server does not speak Git smart HTTP (content type ${type || 'missing'})`, 502);
    }
    const body = await readLimited(response.body, this.#options.maxBytes ?? DEFAULT_MAX_BYTES);
    return parseRefAdvertisement(body);
  }

  async #get(url: string, authorization: string | undefined, runSignal: AbortSignal) {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: ADVERTISEMENT_TYPE };
    if (authorization) headers.authorization = authorization;
    try {
      return await fetch(url, {
        headers,
        redirect: 'follow',
        signal: requestSignal(runSignal, this.#options.timeoutMs),
      });
    } catch (err) {
      throw new TidewatchError('TW_ERR_GIT', `GET info/refs: ${describeRequestError(err, this.#options.timeoutMs)}`, 502, { cause: err });
    }
  }
}

function describeStatus(status: number, sentCredentials: boolean): string {
  switch (status) {
    case 401:
      return sentCredentials ? 'HTTP 401 (credentials refused)' : 'HTTP 401 (authentication required; set git credentials)';
    case 403:
      return 'HTTP 403 (access denied)';
    case 404:
      return 'HTTP 404 (repository not found)';
    default:
      return `HTTP ${status}`;
  }
}
