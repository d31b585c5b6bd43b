// Single sign-on as people use it (docs/people.md#single-sign-on), in headless Chromium against the real binary
// and a real OpenID Provider (npm's oidc-provider on loopback, test/helpers/oidc-provider.ts): a viewer signs in
// with "Sign in with SSO", sees their name and no controls they may not use, is refused an operator's action,
// and signs out; an operator gets the controls; a person in no mapped group gets no session; a tampered
// `state`, an ID token signed by a key the issuer never published, one whose payload was changed and an expired
// one are each refused; after the provider rotates its signing key, sign-in still works.
import { createServer } from 'node:net';
import t from 'tap';
import { launchChromium, screenshot, waitVisible, type Browser } from '../helpers/chromium.js';
import { requireEnv } from '../helpers/env.js';
import { startProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-people-sso-main-token-0123';
const CLIENT_ID = 'tidewatch';
const CLIENT_SECRET = 'e2e-people-sso-client-secret-0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** "Sign in with SSO" from a fresh browser state, as `who`; resolves once the page settled (dashboard or an error). */
async function signInAs(browser: Browser, provider: TestProvider, url: string, who: string): Promise<{ status: number; text: string }> {
  const { context, page } = browser;
  await context.clearCookies();
  provider.user = who;
  await page.goto(`${url}/ui/`);
  await waitVisible(browser, '#sso-offer:not([hidden])');
  const callback = page.waitForResponse((r) => r.url().includes('/v1/auth/callback'), { timeout: 60_000 });
  await page.click('#sso');
  const answer = await callback;
  await page.waitForLoadState('load');
  return { status: answer.status(), text: answer.status() >= 400 ? await answer.text() : '' };
}

t.test('sign in with SSO, roles from groups, refusals of a hostile sign-in', { timeout: 300_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const browser = await launchChromium(t, { viewport: { width: 1280, height: 800 } });
  if (!browser) return;
  const { context, page } = browser;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const provider = await startProvider({
    people: { vic: { groups: ['staff'] }, ana: { groups: ['ops', 'staff'] }, gus: { groups: ['visitors'] } },
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUri: `${url}/v1/auth/callback`,
  });
  t.teardown(() => provider.close());
  let service: RunningService | undefined;
  t.teardown(async () => void (await service?.stop()));
  service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'dashboard,containers,check,audit,history,tokens',
    '--http-api-token', TOKEN,
    '--oidc-issuer', provider.issuer,
    '--oidc-client-id', CLIENT_ID,
    '--oidc-client-secret', CLIENT_SECRET,
    '--oidc-roles', 'admin=admins,operator=ops,viewer=staff',
    '--public-url', url,
    '--http-api-port', String(port),
  ]);
  t.equal(service.url, url);
  t.notOk(JSON.stringify(service.logs).includes(CLIENT_SECRET), 'the client secret is never logged');

  // A viewer: signed in, named, the controls a viewer may not use hidden, and the API refuses them anyway.
  const viewer = await signInAs(browser, provider, url, 'vic');
  t.equal(viewer.status, 302, 'the callback opens a session and sends the person to the dashboard');
  await page.waitForSelector('#app:not([hidden])', { timeout: 30_000 });
  t.equal(await page.textContent('#who'), 'vic (viewer)', 'the header names who is signed in');
  t.ok(await page.isHidden('#check-all'), 'a viewer is not offered "Check now"');
  t.ok(await page.isHidden('#update-all'), 'nor "Update all"');
  const cookie = (await context.cookies(url)).find((c) => c.name === 'tidewatch_session');
  t.ok(cookie, 'a session cookie was set');
  t.equal(cookie?.httpOnly, true, 'HttpOnly');
  t.equal(cookie?.sameSite, 'Strict', 'SameSite=Strict');
  const refused = await page.evaluate(async () => {
    const res = await fetch('/v1/check', { method: 'POST' });
    return { status: res.status, body: (await res.json()) as { error: string } };
  });
  t.equal(refused.status, 403, 'the API refuses a viewer\'s check');
  t.equal(refused.body.error, 'role operator required');
  await screenshot(page, 'people-sso-viewer');
  await page.click('#logout');
  await page.waitForSelector('#login:not([hidden])', { timeout: 30_000 });
  const after = await call(`${url}/v1/containers`, { headers: { cookie: `tidewatch_session=${cookie?.value}` } });
  t.equal(after.status, 401, 'after sign-out the session cookie opens nothing');

  // An operator gets the controls; their session is refused from a hostile origin.
  const operator = await signInAs(browser, provider, url, 'ana');
  t.equal(operator.status, 302);
  await page.waitForSelector('#app:not([hidden])', { timeout: 30_000 });
  t.equal(await page.textContent('#who'), 'ana (operator)');
  t.ok(await page.isVisible('#check-all'), 'an operator is offered "Check now"');
  const session = (await context.cookies(url)).find((c) => c.name === 'tidewatch_session')?.value ?? '';
  const withSession = (headers: Record<string, string>) => call(`${url}/v1/check`, { method: 'POST', headers: { cookie: `tidewatch_session=${session}`, ...headers } });
  t.equal((await withSession({ origin: url })).status, 200, 'from the dashboard\'s own origin the check runs');
  const hostile = await withSession({ origin: 'http://evil.example' });
  t.equal(hostile.status, 403, 'a hostile Origin is refused with the session');
  t.equal((await withSession({ origin: 'null' })).status, 403, 'Origin: null is refused');
  t.equal((await withSession({ 'sec-fetch-site': 'cross-site' })).status, 403, 'a cross-site fetch without Origin is refused');

  // No mapped group: no session.
  const guest = await signInAs(browser, provider, url, 'gus');
  t.equal(guest.status, 403, 'a person in no mapped group is refused');
  t.match(guest.text, /gus is in no group mapped to a role/);
  t.notOk((await context.cookies(url)).some((c) => c.name === 'tidewatch_session'), 'and gets no session cookie');

  // A tampered state, or one not started in this browser: refused before any code is redeemed. (A browser's
  // redirect chain cannot be rewritten in flight, so the callback is called as an attacker would.)
  const login = await fetch(`${url}/v1/auth/login`, { redirect: 'manual' });
  t.equal(login.status, 302, 'login redirects to the provider');
  const authorize = new URL(login.headers.get('location') ?? '');
  t.equal(authorize.origin, provider.issuer, 'to the issuer');
  t.equal(authorize.searchParams.get('code_challenge_method'), 'S256', 'with PKCE');
  t.ok(authorize.searchParams.get('nonce'), 'and a nonce');
  const state = authorize.searchParams.get('state') ?? '';
  const bound = /tidewatch_login=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1] ?? '';
  t.equal(bound, state, 'the state is bound to the browser by a cookie');
  const tamperedState = await call(`${url}/v1/auth/callback?code=abc&state=${state}x`, { headers: { cookie: `tidewatch_login=${bound}` } });
  t.equal(tamperedState.status, 400, 'a tampered state is refused');
  const unbound = await call(`${url}/v1/auth/callback?code=abc&state=${state}`);
  t.equal(unbound.status, 400, 'a state not bound to this browser (login CSRF) is refused');

  // Hostile ID tokens from the token endpoint: each refused.
  for (const mode of ['foreign-key', 'tampered', 'expired'] as const) {
    provider.mode = mode;
    const answer = await signInAs(browser, provider, url, 'ana');
    t.equal(answer.status, 401, `an ID token that is ${mode} is refused`);
    t.notOk((await context.cookies(url)).some((c) => c.name === 'tidewatch_session'), `no session after a ${mode} ID token`);
  }
  provider.mode = 'pass';

  // Key rotation: the provider signs with a key Tidewatch has never seen; it fetches the new keys.
  await provider.rotate();
  // The relying party refetches the keys for an unknown key id at most once a minute (oauth4webapi's guard
  // against being made to hammer the provider): sign in once that minute has passed.
  const fetched = provider.jwksFetchedAt;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, fetched + 61_000 - Date.now())));
  const rotated = await signInAs(browser, provider, url, 'ana');
  t.equal(rotated.status, 302, 'sign-in works after the provider rotated its signing key');
  t.ok(provider.jwksFetchedAt > fetched, 'the new keys were fetched from the issuer');
  const refusals = service.logs.filter((l) => String(l.msg).startsWith('single sign-on'));
  t.ok(refusals.length >= 6, 'every refusal is logged');
  t.ok(refusals.every((l) => typeof l.ip === 'string'), 'with the client IP');
});
