// Head resolution for any host but github.com: Git's smart-HTTP ref advertisement
// (`GET <repo>/info/refs?service=git-upload-pack`, gitprotocol-http(5)). One request lists every ref
// of the repository, so a run asks once per repository whatever the refs its containers follow.
// Nothing is cloned or fetched: only the advertisement is read.
import { TidewatchError } from '../../core/index.js';
import { fetch } from 'undici';
import { describeRequestError, readLimited, requestSignal } from './http-body.js';
import { parseRefAdvertisement, type RefAdvertisement } from './pkt-line.js';
import type { CredentialHosts } from './credential-hosts.js';
import type { SmartHttpRepo } from './repo-url.js';

export interface SmartHttpOptions {
  readonly username?: string;
  readonly password?: string;
  /** Sent as the Basic password (with `username`, else `oauth2`) when no password is set. */
  readonly token?: string;
  /** The hosts the configured credentials may go to (docs/interface.md#git-credentials); none when absent. */
  readonly credentialHosts?: CredentialHosts;
  readonly timeoutMs: number;
  /** Largest advertisement accepted (repositories with many tags advertise a lot). */
  readonly maxBytes?: number;
}

const ADVERTISEMENT_TYPE = 'application/x-git-upload-pack-advertisement';
// Some hosts only speak the smart protocol to clients that look like git.
const USER_AGENT = 'git/2.0 (tidewatch)';
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// git itself follows a few redirects of info/refs (http.followRedirects=initial); so does this client.
const MAX_REDIRECTS = 5;

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

export class SmartHttpClient {
  readonly #options: SmartHttpOptions;
  /**
   * Origins that asked for credentials: later requests send them at once instead of being
   * challenged again. Configured credentials go out only after a 401 (as git does), and only to the
   * hosts the operator listed (#authorization).
   */
  readonly #challenged = new Set<string>();

  constructor(options: SmartHttpOptions) {
    this.#options = options;
  }

  /**
   * The credentials for one request to `url`: the repository URL's own (`https://user:pass@host/…`) only on its
   * own origin, the configured ones only where the operator allowed them (docs/interface.md#git-credentials).
   * A repository anywhere else, or a redirect there, is read anonymously.
   */
  #authorization(repo: SmartHttpRepo, url: URL): string | undefined {
    if (repo.credentials) {
      return new URL(repo.url).origin === url.origin ? basic(repo.credentials.username, repo.credentials.password) : undefined;
    }
    if (!this.#options.credentialHosts?.allows(url)) return undefined;
    const { username, password, token } = this.#options;
    if (password !== undefined && password !== '') return basic(username ?? '', password);
    if (token) return basic(username || 'oauth2', token);
    return undefined;
  }

  /** Fetches and parses the ref advertisement; errors name the status and what it means. */
  async advertisement(repo: SmartHttpRepo, runSignal: AbortSignal): Promise<RefAdvertisement> {
    let url = new URL(`${repo.url}/info/refs?service=git-upload-pack`);
    let sentCredentials = false;
    let response;
    for (let hop = 0; ; hop++) {
      ({ response, sentCredentials } = await this.#getAnsweringChallenge(repo, url, runSignal));
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location) break;
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new TidewatchError('TW_ERR_GIT', 'GET info/refs: too many redirects', 502);
      // Each hop is judged on its own: credentials go only where #authorization allows them.
      url = new URL(location, url);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new TidewatchError('TW_ERR_GIT', `GET info/refs: ${describeStatus(response.status, sentCredentials, this.#withheld(repo, url))}`, 502);
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== ADVERTISEMENT_TYPE) {
      await response.body?.cancel();
      throw new TidewatchError('TW_ERR_GIT', `the server does not speak Git smart HTTP (content type ${type || 'missing'})`, 502);
    }
    const body = await readLimited(response.body, this.#options.maxBytes ?? DEFAULT_MAX_BYTES);
    return parseRefAdvertisement(body);
  }

  /** Credentials are configured, but `url`'s host is not one the operator allowed them for. */
  #withheld(repo: SmartHttpRepo, url: URL): boolean {
    const { password, token } = this.#options;
    return repo.credentials === undefined && Boolean(password || token) && !this.#options.credentialHosts?.allows(url);
  }

  /** One GET of `url`, repeated once with credentials after a 401 when this origin may have them. */
  async #getAnsweringChallenge(repo: SmartHttpRepo, url: URL, runSignal: AbortSignal) {
    const origin = url.origin;
    const authorization = this.#authorization(repo, url);
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
    return { response, sentCredentials };
  }

  async #get(url: URL, authorization: string | undefined, runSignal: AbortSignal) {
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: ADVERTISEMENT_TYPE };
    if (authorization) headers.authorization = authorization;
    try {
      return await fetch(url, {
        headers,
        // Followed by hand (advertisement): a redirect must not carry a credential to a host not allowed one.
        redirect: 'manual',
        signal: requestSignal(runSignal, this.#options.timeoutMs),
      });
    } catch (err) {
      throw new TidewatchError('TW_ERR_GIT', `GET info/refs: ${describeRequestError(err, this.#options.timeoutMs)}`, 502, { cause: err });
    }
  }
}

function describeStatus(status: number, sentCredentials: boolean, withheld: boolean): string {
  switch (status) {
    case 401:
      if (sentCredentials) return 'HTTP 401 (credentials refused)';
      return withheld
        ? 'HTTP 401 (authentication required; the git credentials go only to the hosts in --git-credential-hosts, over https or to a loopback address)'
        : 'HTTP 401 (authentication required; set git credentials)';
    case 403:
      return 'HTTP 403 (access denied)';
    case 404:
      return 'HTTP 404 (repository not found)';
    default:
      return `HTTP ${status}`;
  }
}
