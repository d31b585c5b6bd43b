// The OpenID Connect relying party (docs/people.md#single-sign-on), on `openid-client` (panva's, an OpenID
// Foundation certified relying-party library on oauth4webapi and jose): hand-written JWT checks are where
// sign-in bugs live. The authorization-code flow with PKCE (S256), `state` and `nonce`; the issuer's
// discovery document, fetched at the first sign-in and again after a failure; the ID token's signature
// verified against the issuer's keys (non-repudiation checks: a key the issuer rotated in is fetched when
// a token names it), and its issuer, audience, expiry and nonce. This module, and the library, load only
// when --oidc-issuer is set (docs/performance.md#footprint).
import * as client from 'openid-client';
import type { Logger } from '../../core/index.js';

/** What a sign-in started: kept server-side under its `state` until the provider sends the person back. */
export interface PendingSignIn {
  readonly verifier: string;
  readonly nonce: string;
  readonly expiresMs: number;
}

export interface OidcSettings {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri: string;
  readonly roleClaim: string;
}

/** Claims of a verified sign-in: who (`sub`, a name) and the role claim's value. */
export interface SignedIn {
  readonly subject: string;
  readonly name: string;
  readonly groups: unknown;
}

/** Scopes asked for: the person's name and e-mail, and `groups` (Authelia, Pocket ID; Keycloak ignores it). */
const SCOPE = 'openid profile email groups';

export class OidcClient {
  readonly #settings: OidcSettings;
  readonly #logger: Logger;
  #config: Promise<client.Configuration> | undefined;

  constructor(settings: OidcSettings, logger: Logger) {
    this.#settings = settings;
    this.#logger = logger;
  }

  /** The provider's configuration, discovered once; a failed discovery is tried again by the next sign-in. */
  #configuration(): Promise<client.Configuration> {
    if (!this.#config) {
      const { issuer, clientId, clientSecret } = this.#settings;
      // http: is accepted only for a loopback issuer (the option's parser refused any other).
      const insecure = new URL(issuer).protocol === 'http:';
      const execute = [client.enableNonRepudiationChecks, ...(insecure ? [client.allowInsecureRequests] : [])];
      this.#config = client
        .discovery(new URL(issuer), clientId, undefined, client.ClientSecretBasic(clientSecret), { execute, timeout: 10 })
        .catch((err: unknown) => {
          this.#config = undefined;
          throw err;
        });
    }
    return this.#config;
  }

  /** The provider's authorization URL for a new sign-in, and what to keep until it comes back. */
  async begin(ttlMs: number): Promise<{ url: URL; state: string; pending: PendingSignIn }> {
    const config = await this.#configuration();
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.#settings.redirectUri,
      scope: SCOPE,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, state, pending: { verifier, nonce, expiresMs: Date.now() + ttlMs } };
  }

  /**
   * Redeems the code the provider sent back (`callback` is the redirect URI with the callback's query) and
   * verifies the ID token; the role claim comes from the ID token, else from the userinfo endpoint.
   */
  async finish(callback: URL, state: string, pending: PendingSignIn): Promise<SignedIn> {
    const config = await this.#configuration();
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: pending.verifier,
      expectedState: state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the provider sent no ID token');
    let groups: unknown = claims[this.#settings.roleClaim];
    let profile: Record<string, unknown> = claims;
    if (groups === undefined) {
      // Many providers put scope claims in userinfo only (OpenID Connect Core 5.4).
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
      groups = info[this.#settings.roleClaim];
      profile = { ...info, ...claims };
    }
    const name = [profile.preferred_username, profile.email, claims.sub].find((v): v is string => typeof v === 'string' && v !== '') as string;
    this.#logger.debug({ subject: claims.sub }, 'ID token verified');
    return { subject: claims.sub, name: name.slice(0, 200), groups };
  }
}
