// Authorization for registry requests. The registry says how it wants to be spoken to on `GET /v2/`
// (remembered per registry): 200 means anonymous, a Basic challenge means credentials on every
// request, a Bearer challenge means a token from its realm for the repository's scope. A 401 on a
// real request carries a fresh challenge; `reauthorize` answers it once.
import { TidewatchError } from '../../core/index.js';
import { parseChallenge, type Challenge } from './challenge.js';
import type { CredentialStore, Credentials } from './credentials.js';
import { mayCarryCredentials, type RegistryEndpoint } from './endpoint.js';
import { TokenCache, type IssuedToken } from './token-cache.js';
import { RegistryError, type RegistryReply, type RegistryTransport } from './transport.js';
// node:crypto loads with its first use, not with the service (docs/performance.md#footprint).
const nodeCrypto = () => process.getBuiltinModule('node:crypto');

export type BearerChallenge = Extract<Challenge, { scheme: 'bearer' }>;

export class RegistryAuthError extends TidewatchError {
  constructor(message: string) {
    super('TW_ERR_REGISTRY_AUTH', message, 401);
    this.name = 'RegistryAuthError';
  }
}

/** Who is asking, without the secret: tokens issued to different credentials never mix. */
function credentialId(credentials: Credentials | undefined): string {
  if (!credentials) return 'anonymous';
  const secret = `${credentials.username ?? ''}\u0000${credentials.password ?? ''}\u0000${credentials.identityToken ?? ''}`;
  return nodeCrypto().createHash('sha256').update(secret).digest('hex').slice(0, 32);
}

function basicValue(credentials: Credentials): string | undefined {
  // Watchtower sends an identity token as the password when a registry only speaks Basic.
  const secret = credentials.password ?? credentials.identityToken;
  if (credentials.username === undefined || secret === undefined) return undefined;
  return `Basic ${Buffer.from(`${credentials.username}:${secret}`).toString('base64')}`;
}

/** `pull` access to one repository, the only access a staleness check needs. */
export function pullScope(repository: string): string {
  return `repository:${repository}:pull`;
}

export class Authorizer {
  readonly #transport: RegistryTransport;
  readonly #credentials: CredentialStore;
  readonly #tlsSkip: boolean;
  readonly #challenges = new Map<string, Promise<Challenge>>();
  readonly #tokens = new TokenCache();

  constructor(transport: RegistryTransport, credentials: CredentialStore, tlsSkip: boolean) {
    this.#transport = transport;
    this.#credentials = credentials;
    this.#tlsSkip = tlsSkip;
  }

  /** The `Authorization` value for a request needing `scope`, or undefined for anonymous access. */
  async authorize(endpoint: RegistryEndpoint, scope: string, signal?: AbortSignal): Promise<string | undefined> {
    const challenge = await this.#challenge(endpoint, signal);
    return this.#answer(endpoint, challenge, scope, undefined, signal);
  }

  /**
   * After a 401: the value to retry with, or undefined when retrying cannot help (no credentials, or
   * the ones just sent were refused).
   */
  async reauthorize(
    endpoint: RegistryEndpoint,
    scope: string,
    reply: RegistryReply,
    sent: string | undefined,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    const challenge = parseChallenge(reply.headers['www-authenticate']);
    if (!challenge) return undefined;
    // The registry changed its mind (or we never asked): remember its current challenge, minus the scope.
    const remembered: Challenge =
      challenge.scheme === 'bearer'
        ? { scheme: 'bearer', realm: challenge.realm, ...(challenge.service ? { service: challenge.service } : {}) }
        : challenge;
    this.#challenges.set(endpoint.baseUrl, Promise.resolve(remembered));
    const wanted = challenge.scheme === 'bearer' && challenge.scope ? challenge.scope : scope;
    const value = await this.#answer(endpoint, challenge, wanted, sent, signal);
    return value === sent ? undefined : value;
  }

  /** Describes why a request stayed unauthorized, for the per-target error. */
  async describeRefusal(endpoint: RegistryEndpoint): Promise<string> {
    const credentials = await this.#credentials.lookup(endpoint.registry).catch(() => undefined);
    return credentials
      ? `${endpoint.registry} refused the credentials from ${credentials.source}`
      : `${endpoint.registry} requires authentication and no credentials are configured for it`;
  }

  #challenge(endpoint: RegistryEndpoint, signal?: AbortSignal): Promise<Challenge> {
    let pending = this.#challenges.get(endpoint.baseUrl);
    if (!pending) {
      pending = this.#ping(endpoint, signal);
      this.#challenges.set(endpoint.baseUrl, pending);
      // A failed ping (network, 5xx) is retried by the next request, not remembered.
      pending.catch(() => this.#challenges.delete(endpoint.baseUrl));
    }
    return pending;
  }

  async #ping(endpoint: RegistryEndpoint, signal?: AbortSignal): Promise<Challenge> {
    const reply = await this.#transport.send({
      registry: endpoint.registry,
      url: new URL('/v2/', endpoint.baseUrl),
      method: 'GET',
      ...(signal ? { signal } : {}),
    });
    if (reply.status === 401) {
      const challenge = parseChallenge(reply.headers['www-authenticate']);
      if (!challenge) throw new RegistryAuthError(`${endpoint.registry} answered 401 without a usable challenge`);
      return challenge;
    }
    if (reply.status >= 500 || reply.status === 429) {
      throw new RegistryError(`${endpoint.registry} answered ${reply.status} on /v2/`, reply.status);
    }
    // 200, or a registry without a /v2/ root (404): requests go out anonymously until a 401 says otherwise.
    return { scheme: 'none' };
  }

  async #answer(
    endpoint: RegistryEndpoint,
    challenge: Challenge,
    scope: string,
    refused: string | undefined,
    signal?: AbortSignal,
  ): Promise<string | undefined> {
    if (challenge.scheme === 'none') return undefined;
    const credentials = await this.#credentials.lookup(endpoint.registry);
    if (challenge.scheme === 'basic') return credentials ? basicValue(credentials) : undefined;
    const key = `${challenge.realm}\u0000${challenge.service ?? ''}\u0000${credentialId(credentials)}`;
    const rejectedToken = refused?.startsWith('Bearer ') ? refused.slice('Bearer '.length) : undefined;
    if (rejectedToken) this.#tokens.invalidate(key, rejectedToken);
    const token = await this.#tokens.get(
      key,
      scope,
      () => this.#issue(endpoint, challenge, scope, credentials, signal),
      rejectedToken,
    );
    return `Bearer ${token}`;
  }

  /** Asks the token server: GET with Basic credentials, or the OAuth2 refresh-token POST for an identity token. */
  async #issue(
    endpoint: RegistryEndpoint,
    challenge: BearerChallenge,
    scope: string,
    credentials: Credentials | undefined,
    signal?: AbortSignal,
  ): Promise<IssuedToken> {
    let realm: URL;
    try {
      realm = new URL(challenge.realm);
    } catch {
      throw new RegistryAuthError(`${endpoint.registry} named an invalid token realm "${challenge.realm}"`);
    }
    // A missing service is the realm's host, as Docker clients assume.
    const service = challenge.service ?? realm.host;
    const scopes = scope.split(/\s+/).filter(Boolean);
    // The realm is named by the registry's answer: credentials go there over https or to a loopback address; plain
    // http elsewhere only under --registry-tls-skip and only to the registry's own host, which gets them anyway.
    const sameHost = realm.hostname.toLowerCase() === new URL(endpoint.baseUrl).hostname.toLowerCase();
    const safe = credentials !== undefined && mayCarryCredentials(realm, this.#tlsSkip && sameHost);
    let reply: RegistryReply;
    if (safe && credentials.identityToken) {
      const form = new URLSearchParams({ grant_type: 'refresh_token', service, client_id: 'tidewatch' });
      form.set('refresh_token', credentials.identityToken);
      for (const s of scopes) form.append('scope', s);
      reply = await this.#transport.send({
        registry: endpoint.registry,
        url: realm,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        carriesCredential: true,
        ...(signal ? { signal } : {}),
      });
    } else {
      const url = new URL(realm);
      url.searchParams.set('service', service);
      for (const s of scopes) url.searchParams.append('scope', s);
      const basic = safe ? basicValue(credentials) : undefined;
      reply = await this.#transport.send({
        registry: endpoint.registry,
        url,
        method: 'GET',
        headers: basic ? { authorization: basic } : {},
        ...(basic ? { carriesCredential: true } : {}),
        ...(signal ? { signal } : {}),
      });
    }
    if (reply.status === 401 || reply.status === 403) {
      throw new RegistryAuthError(
        `token server ${realm.host} refused ${credentials ? `the credentials from ${credentials.source}` : 'anonymous access'} for ${scope} (${reply.status})`,
      );
    }
    if (reply.status < 200 || reply.status >= 300) {
      throw new RegistryError(`token server ${realm.host} answered ${reply.status}`, reply.status);
    }
    let parsed: { token?: unknown; access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(reply.body.toString('utf8')) as typeof parsed;
    } catch {
      throw new RegistryAuthError(`token server ${realm.host} answered with invalid JSON`);
    }
    const token = typeof parsed.token === 'string' && parsed.token ? parsed.token : parsed.access_token;
    if (typeof token !== 'string' || token === '') {
      throw new RegistryAuthError(`token server ${realm.host} answered without a token`);
    }
    const expiresIn = typeof parsed.expires_in === 'number' ? parsed.expires_in : 0;
    return { token, expiresIn };
  }
}

