// Single sign-on's routes (docs/people.md#single-sign-on), served with the dashboard: GET /v1/auth/login sends
// the browser to the provider, GET /v1/auth/callback takes it back, POST /v1/auth/logout ends the session.
// The login binds its `state` to the browser that started it (a short-lived cookie), so a callback someone
// else's browser is lured into is refused (login CSRF). A person none of whose groups is mapped to a role
// gets no session. Every refusal is logged with the client IP, never with a code, token or cookie.
import { errorMessage, httpRoutes, type HttpRouteRequest, type HttpRouteResponse, type Logger, type TidewatchCore } from '../../core/index.js';
import { OidcClient, type PendingSignIn } from './oidc.js';
import type { PeopleOptions } from './options.js';
import { parseRoleMap, roleOfGroups } from './role-map.js';
import type { SessionStore } from './sessions.js';
import { SESSION_COOKIE } from './start.js';

const ENDPOINT = 'dashboard';
const LOGIN_COOKIE = 'tidewatch_login';
/** How long a person may take at the provider. */
const LOGIN_TTL_MS = 10 * 60_000;
/** Sign-ins started and not finished, at most: the oldest is dropped past it (a flood cannot grow memory). */
const MAX_PENDING = 1_000;
const BODY_LIMIT = 1_024;

function cookieValue(request: HttpRouteRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The host of an Origin header; undefined for `null` or anything unparsable. */
function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host || undefined;
  } catch {
    return undefined;
  }
}

function refuse(status: number, message: string, code: string, clear: readonly string[] = []): HttpRouteResponse {
  return { status, error: { message, code }, ...(clear.length > 0 ? { headers: { 'set-cookie': clear } } : {}) };
}

export async function signInRoutes(core: TidewatchCore, options: PeopleOptions, sessions: SessionStore, logger: Logger): Promise<void> {
  const base = options.publicUrl.replace(/\/+$/, '');
  const secure = base.startsWith('https:') ? '; Secure' : '';
  const roles = parseRoleMap(options.oidcRoles);
  const oidc = new OidcClient(
    {
      issuer: options.oidcIssuer,
      clientId: options.oidcClientId,
      clientSecret: options.oidcClientSecret,
      redirectUri: `${base}/v1/auth/callback`,
      roleClaim: options.oidcRoleClaim,
    },
    logger,
  );
  const pending = new Map<string, PendingSignIn>();
  // Lax, not Strict: the provider's redirect back is a cross-site navigation, which Strict cookies never join.
  const loginCookie = (state: string, maxAge: number) =>
    `${LOGIN_COOKIE}=${state}; Path=/v1/auth; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
  const sessionCookie = (id: string, maxAge: number) =>
    `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
  const clearLogin = loginCookie('', 0);

  const login = async (request: HttpRouteRequest): Promise<HttpRouteResponse> => {
    try {
      const started = await oidc.begin(LOGIN_TTL_MS);
      const now = Date.now();
      for (const [state, p] of pending) if (p.expiresMs <= now) pending.delete(state);
      if (pending.size >= MAX_PENDING) pending.delete(pending.keys().next().value as string);
      pending.set(started.state, started.pending);
      return {
        status: 302,
        body: { location: started.url.href },
        headers: { location: started.url.href, 'set-cookie': loginCookie(started.state, LOGIN_TTL_MS / 1000), 'cache-control': 'no-store' },
      };
    } catch (err) {
      logger.error({ issuer: options.oidcIssuer, ip: request.ip, err: errorMessage(err) }, 'single sign-on: the provider could not be reached');
      return refuse(502, 'the identity provider could not be reached: try again later', 'TW_ERR_OIDC_PROVIDER');
    }
  };

  const callback = async (request: HttpRouteRequest): Promise<HttpRouteResponse> => {
    const state = request.query.state ?? '';
    const bound = cookieValue(request, LOGIN_COOKIE);
    const started = pending.get(state);
    // One use only, whatever comes next.
    pending.delete(state);
    if (request.query.error !== undefined) {
      logger.warn({ ip: request.ip, error: request.query.error.slice(0, 100) }, 'single sign-on refused by the provider');
      return refuse(401, `the identity provider refused the sign-in: ${request.query.error.slice(0, 100)}`, 'TW_ERR_OIDC_REFUSED', [clearLogin]);
    }
    if (!started || state === '' || bound !== state || started.expiresMs <= Date.now()) {
      logger.warn({ ip: request.ip, reason: !started ? 'unknown state' : bound !== state ? 'state not bound to this browser' : 'expired' }, 'single sign-on callback refused');
      return refuse(400, 'sign-in state unknown, expired or not started in this browser: sign in again', 'TW_ERR_OIDC_STATE', [clearLogin]);
    }
    const current = new URL(`${base}/v1/auth/callback`);
    for (const [name, value] of Object.entries(request.query)) current.searchParams.set(name, value);
    let signedIn;
    try {
      signedIn = await oidc.finish(current, state, started);
    } catch (err) {
      logger.warn({ ip: request.ip, err: errorMessage(err).slice(0, 300) }, 'single sign-on: the ID token was refused');
      return refuse(401, 'the sign-in could not be verified: sign in again', 'TW_ERR_OIDC_TOKEN', [clearLogin]);
    }
    const role = roleOfGroups(roles, signedIn.groups);
    if (!role) {
      logger.warn({ ip: request.ip, who: signedIn.name }, 'single sign-on: no mapped group, no session');
      return refuse(403, `${signedIn.name} is in no group mapped to a role (--oidc-roles)`, 'TW_ERR_OIDC_NO_ROLE', [clearLogin]);
    }
    const id = sessions.open({ actor: { kind: 'oidc', name: signedIn.name }, role });
    logger.info({ ip: request.ip, who: signedIn.name, role }, 'signed in');
    const next = `${base}/ui/`;
    return {
      status: 302,
      body: { location: next },
      headers: { location: next, 'set-cookie': [clearLogin, sessionCookie(id, Math.floor(sessions.ttlMs / 1000))], 'cache-control': 'no-store' },
    };
  };

  const logout = (request: HttpRouteRequest): HttpRouteResponse => {
    // A cross-site page must not sign a person out either (docs/security.md, sessions).
    const origin = request.headers.origin;
    const host = request.headers.host;
    const own = origin !== undefined && (origin === new URL(base).origin || (host !== undefined && hostOf(origin) === host));
    if ((origin !== undefined && !own) || (origin === undefined && request.headers['sec-fetch-site'] === 'cross-site')) {
      logger.warn({ ip: request.ip }, 'sign-out refused: cross-origin');
      return refuse(403, 'cross-origin sign-out refused', 'TW_ERR_HTTP_CROSS_ORIGIN');
    }
    const id = cookieValue(request, SESSION_COOKIE);
    const closed = id !== undefined && sessions.close(id);
    return { status: 200, body: { signed_out: closed }, headers: { 'set-cookie': sessionCookie('', 0) } };
  };

  const routes = httpRoutes(core.services);
  const tags = ['people'];
  routes.register({ endpoint: ENDPOINT, method: 'GET', url: '/v1/auth/login', bodyLimit: BODY_LIMIT, schema: { summary: 'Sign in with SSO', tags }, handle: login });
  routes.register({ endpoint: ENDPOINT, method: 'GET', url: '/v1/auth/callback', bodyLimit: BODY_LIMIT, schema: { summary: 'Where the identity provider sends the person back', tags }, handle: callback });
  routes.register({ endpoint: ENDPOINT, method: 'POST', url: '/v1/auth/logout', bodyLimit: BODY_LIMIT, schema: { summary: 'Sign out', tags }, handle: logout });
}
