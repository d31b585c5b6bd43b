// A real OpenID Provider for the single sign-on tests: npm's `oidc-provider` (panva's, OpenID Foundation
// certified) on loopback, with people in groups, behind a small front server on the issuer's port. The front
// server answers the provider's interaction by signing in the person the test chose (no login form to fill),
// passes everything else through, and can turn the token endpoint's ID token hostile (signed by a key the
// issuer never published, its payload changed, or expired though signed with the issuer's own key), so the
// relying party's refusals are tested against the real flow. `rotate()` restarts the provider on a new
// signing key behind the same issuer, as a provider's key rotation looks from outside.
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';

export interface Person {
  readonly groups: readonly string[];
}

/** What the token endpoint's ID token becomes on its way to the relying party. */
export type TokenMode = 'pass' | 'foreign-key' | 'tampered' | 'expired';

export interface TestProvider {
  readonly issuer: string;
  /** The person the next interaction signs in. */
  user: string;
  mode: TokenMode;
  /** When the relying party last fetched the issuer's keys (epoch ms; 0: never). */
  jwksFetchedAt: number;
  /** Restarts the provider with a new signing key (the old one no longer published). */
  rotate(): Promise<void>;
  close(): Promise<void>;
}

async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

async function body(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startProvider(options: {
  people: Readonly<Record<string, Person>>;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}): Promise<TestProvider> {
  const front = createServer();
  const frontPort = await listen(front);
  const issuer = `http://127.0.0.1:${frontPort}`;
  let key = await signingKey('key-1');
  let provider: Provider;
  let inner: Server;
  let innerPort = 0;

  const configuration = (jwk: JWK): Configuration => ({
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    findAccount: (_ctx, id) => {
      const person = options.people[id];
      if (!person) return undefined;
      return {
        accountId: id,
        claims: () => ({ sub: id, preferred_username: id, email: `${id}@example.test`, groups: [...person.groups] }),
      };
    },
    claims: { openid: ['sub'], profile: ['preferred_username'], email: ['email'], groups: ['groups'] },
    scopes: ['openid', 'profile', 'email', 'groups'],
    // The groups in the ID token itself; the relying party reads userinfo only when they are not there.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ['test-cookie-key-0123456789'] },
  });

  const start = async (): Promise<void> => {
    provider = new Provider(issuer, configuration(key));
    inner = createServer(provider.callback());
    innerPort = await new Promise<number>((resolve) => inner.listen(innerPort, '127.0.0.1', () => resolve((inner.address() as AddressInfo).port)));
  };
  await start();

  const state: TestProvider = {
    issuer,
    user: '',
    mode: 'pass',
    jwksFetchedAt: 0,
    async rotate() {
      await new Promise<void>((resolve) => inner.close(() => resolve()));
      inner.closeAllConnections();
      key = await signingKey(`key-${Date.now()}`);
      await start();
    },
    async close() {
      front.closeAllConnections();
      inner.closeAllConnections();
      await Promise.all([new Promise((r) => front.close(r)), new Promise((r) => inner.close(r))]);
    },
  };

  // The interaction: sign in the chosen person, and grant what the client asked for (first-party consent).
  const interact = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: state.user } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = details.grantId
      ? ((await provider.Grant.find(details.grantId)) as InstanceType<Provider['Grant']>)
      : new provider.Grant({ accountId: details.session?.accountId as string, clientId: details.params.client_id as string });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingOIDCClaims?: string[] };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };

  const hostile = async (idToken: string): Promise<string> => {
    const claims = decodeJwt(idToken);
    switch (state.mode) {
      case 'foreign-key': {
        const foreign = await generateKeyPair('RS256');
        return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'not-the-issuers-key' }).sign(foreign.privateKey);
      }
      case 'tampered': {
        // Another person's name and the admin group, the issuer's signature kept.
        const [header, , signature] = idToken.split('.');
        const payload = Buffer.from(JSON.stringify({ ...claims, sub: 'mallory', preferred_username: 'mallory', groups: ['admins'] })).toString('base64url');
        return `${header}.${payload}.${signature}`;
      }
      case 'expired': {
        const now = Math.floor(Date.now() / 1000);
        const { importJWK } = await import('jose');
        const issuerKey = await importJWK(key, 'RS256');
        return new SignJWT({ ...claims, iat: now - 7_200, exp: now - 3_600 })
          .setProtectedHeader({ alg: 'RS256', kid: decodeProtectedHeader(idToken).kid as string })
          .sign(issuerKey);
      }
      default:
        return idToken;
    }
  };

  front.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    if (path.startsWith('/interaction/')) {
      interact(req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(String(err));
      });
      return;
    }
    if (path === '/jwks') state.jwksFetchedAt = Date.now();
    // Everything else goes to the provider; the token endpoint's answer may be made hostile on the way back.
    void (async () => {
      const sent = await body(req);
      const upstream = httpRequest({ host: '127.0.0.1', port: innerPort, method: req.method, path: req.url, headers: req.headers }, async (answer) => {
        const received = await body(answer);
        let out = received;
        if (path === '/token' && state.mode !== 'pass' && answer.statusCode === 200) {
          const json = JSON.parse(received.toString('utf8')) as { id_token?: string };
          if (json.id_token) json.id_token = await hostile(json.id_token);
          out = Buffer.from(JSON.stringify(json));
        }
        const headers = { ...answer.headers, 'content-length': String(out.length) };
        delete headers['transfer-encoding'];
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(out);
      });
      upstream.on('error', (err) => {
        res.statusCode = 502;
        res.end(String(err));
      });
      upstream.end(sent);
    })();
  });

  return state;
}
