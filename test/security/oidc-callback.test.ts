// Threat model row "the sign-in callback" (docs/security.md#people-sessions-tokens-sign-in): GET
// /v1/auth/callback takes a code and a state from whoever sends the browser there. A state Tidewatch did not
// issue, one issued to another browser (login CSRF: signing the victim in as the attacker), or one already used
// is refused before any code is redeemed; a code the provider does not know opens no session. Against a real
// OpenID Provider (oidc-provider on loopback). Fails when the state check or its binding cookie is removed.
import t from 'tap';
import { createTidewatch } from '../../core/index.js';
import { createHttpApiPlugin } from '../../plugins/http-api/index.js';
import { peoplePlugin } from '../../plugins/people/index.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { startProvider } from '../helpers/oidc-provider.js';
import { stubPlugin, TOKEN } from '../plugins/http-api/helpers/harness.js';

t.test('the callback refuses a state it did not issue to this browser, and each state once', async (t) => {
  const api = createHttpApiPlugin();
  // The API's port is known only once it listens; the provider is told the redirect URI it will have.
  const reserve = (await import('node:net')).createServer();
  const port = await new Promise<number>((resolve) => reserve.listen(0, '127.0.0.1', () => resolve((reserve.address() as { port: number }).port)));
  await new Promise((resolve) => reserve.close(resolve));
  const base = `http://127.0.0.1:${port}`;
  const provider = await startProvider({ people: { ana: { groups: ['ops'] } }, clientId: 'tw', clientSecret: 'client-secret-0123456789', redirectUri: `${base}/v1/auth/callback` });
  t.teardown(() => provider.close());
  const logger = memoryLogger();
  const tw = await createTidewatch({
    logger,
    plugins: [
      stubPlugin({ targets: [], staleness: new Map(), apply: async (plan) => ({ target: plan.target, outcome: 'updated' }), ready: async () => undefined }),
      { plugin: peoplePlugin, options: { oidcIssuer: provider.issuer, oidcClientId: 'tw', oidcClientSecret: 'client-secret-0123456789', oidcRoles: 'operator=ops', publicUrl: base } },
      { plugin: api, options: { endpoints: ['dashboard', 'containers'], token: TOKEN, host: '127.0.0.1', port, rateLimit: 0 } },
    ],
  } as Parameters<typeof createTidewatch>[0]);
  t.teardown(() => tw.close());

  const login = await fetch(`${base}/v1/auth/login`, { redirect: 'manual' });
  t.equal(login.status, 302);
  const state = new URL(login.headers.get('location') ?? '').searchParams.get('state') ?? '';
  const cookie = login.headers.get('set-cookie') ?? '';
  t.match(cookie, /^tidewatch_login=[^;]+; Path=\/v1\/auth; HttpOnly; SameSite=Lax; Max-Age=600$/, 'the state is bound to this browser, for ten minutes');
  const bound = `tidewatch_login=${state}`;
  const callback = (query: string, cookieHeader?: string) =>
    fetch(`${base}/v1/auth/callback?${query}`, { redirect: 'manual', headers: cookieHeader ? { cookie: cookieHeader } : {} });

  t.equal((await callback(`code=x&state=${state}x`, bound)).status, 400, 'a tampered state');
  t.equal((await callback(`code=x&state=${state}`)).status, 400, 'a state without its browser cookie (login CSRF)');
  t.equal((await callback(`code=x&state=${state}`, 'tidewatch_login=another')).status, 400, 'a state bound to another browser');
  // Each refusal above spent nothing but the state tried; a fresh state for the code test:
  const second = await fetch(`${base}/v1/auth/login`, { redirect: 'manual' });
  const state2 = new URL(second.headers.get('location') ?? '').searchParams.get('state') ?? '';
  const unknownCode = await callback(`code=not-a-code&state=${state2}`, `tidewatch_login=${state2}`);
  t.equal(unknownCode.status, 401, 'a code the provider never issued opens no session');
  t.notMatch(unknownCode.headers.get('set-cookie') ?? '', /tidewatch_session=[^;]/, 'no session cookie');
  t.equal((await callback(`code=not-a-code&state=${state2}`, `tidewatch_login=${state2}`)).status, 400, 'a state is good for one callback only');
  t.ok(logger.lines.filter((l) => String(l.msg).startsWith('single sign-on')).length >= 5, 'every refusal is logged');
  t.notOk(JSON.stringify(logger.lines).includes('not-a-code'), 'never with the code');
});

t.test('behind an https: public URL the sign-in and session cookies are Secure', async (t) => {
  // decisions §20 (docs/people.md#sessions): `Secure` when the public URL is `https:`. The API itself listens on
  // loopback http (a TLS proxy in front is the case this covers); the login cookie and the session cookie are
  // built with the same flag, the session's as sign-out clears it.
  const api = createHttpApiPlugin();
  const publicUrl = 'https://tidewatch.example/';
  const provider = await startProvider({ people: {}, clientId: 'tw', clientSecret: 'client-secret-0123456789', redirectUri: `${publicUrl}v1/auth/callback` });
  t.teardown(() => provider.close());
  const tw = await createTidewatch({
    logger: memoryLogger(),
    plugins: [
      stubPlugin({ targets: [], staleness: new Map(), apply: async (plan) => ({ target: plan.target, outcome: 'updated' }), ready: async () => undefined }),
      { plugin: peoplePlugin, options: { oidcIssuer: provider.issuer, oidcClientId: 'tw', oidcClientSecret: 'client-secret-0123456789', oidcRoles: 'operator=ops', publicUrl } },
      { plugin: api, options: { endpoints: ['dashboard', 'containers'], token: TOKEN, host: '127.0.0.1', port: 0, rateLimit: 0 } },
    ],
  } as Parameters<typeof createTidewatch>[0]);
  t.teardown(() => tw.close());
  const base = api.address?.url as string;
  const login = await fetch(`${base}/v1/auth/login`, { redirect: 'manual' });
  t.equal(login.status, 302);
  t.equal(new URL(login.headers.get('location') ?? '').searchParams.get('redirect_uri'), `${publicUrl}v1/auth/callback`, 'the redirect URI is the public URL\'s');
  t.match(login.headers.get('set-cookie') ?? '', /^tidewatch_login=[^;]+; Path=\/v1\/auth; HttpOnly; SameSite=Lax; Max-Age=600; Secure$/, 'the login cookie is Secure');
  const logout = await fetch(`${base}/v1/auth/logout`, { method: 'POST' });
  t.equal(logout.status, 200);
  t.match(logout.headers.get('set-cookie') ?? '', /^tidewatch_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0; Secure$/, 'the session cookie is Secure');
});
