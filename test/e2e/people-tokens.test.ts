// Personal API tokens and roles through the real binary, engine and registry (docs/people.md): an admin creates
// a viewer token for CI and an operator token for a person; each may do what its role allows and gets 403
// naming the role for the rest; the secret is shown once, kept only as a hash in the data directory, never
// logged; a token expires and is revoked at once, each refused with 401 saying so, across a restart; and the
// operator's update, rollback and release carry the token's name as `actor` in the audit trail, the events
// and the history.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { CaptureServer } from '../helpers/capture-server.js';
import { launchChromium } from '../helpers/chromium.js';
import { waitFor } from '../helpers/env.js';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-people-tokens-main-token-0123';

interface Created {
  id: string;
  token: string;
  role: string;
  expires_at: string | null;
}

async function dataDirText(dir: string): Promise<string> {
  let text = '';
  for (const name of await readdir(dir)) text += await readFile(join(dir, name), 'utf8').catch(() => '');
  return text;
}

t.test('personal tokens: roles, expiry, revocation, a name on every decision', { timeout: 300_000 }, async (t) => {
  const s = await scenario(t, 'e2e-people-tokens');
  if (!s) return;
  const dir = await mkdtemp(join(tmpdir(), 'tw-people-tokens-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const app = await runningOn(s, 'app');
  // Notifications name who started the run: {{.Actor}} (docs/notifications.md).
  const hook = await new CaptureServer().start();
  t.teardown(() => hook.close());
  const serve = async (): Promise<RunningService> => {
    const service = await startService([
      '--host', s.env.dockerHost,
      '--http-api-endpoints', 'update,check,containers,audit,rollback,history,tokens,events,dashboard',
      '--http-api-token', TOKEN,
      '--http-api-events-token', 'e2e-people-tokens-events-0123',
      '--data-dir', dir, '--update-grace-period', '1s', '--stop-timeout', '5s',
      '--notification-url', `generic+http://${hook.host}/hook`, '--notification-report', '--notification-template', 'run by {{.Actor}}',
      `${s.prefix}-.*`,
    ]);
    t.teardown(() => service.stop('SIGKILL'));
    return service;
  };
  let service = await serve();
  const api = (method: string, path: string, token: string, body?: unknown) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    }).then(async (res) => ({ status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> }));
  const create = async (body: unknown) => {
    const res = await api('POST', '/v1/tokens', TOKEN, body);
    t.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as unknown as Created;
  };

  const ci = await create({ name: 'ci-checks', role: 'viewer' });
  t.match(ci, { role: 'viewer', expires_at: null, token: /^tw_[A-Za-z0-9_-]{43}$/ }, 'a 256-bit token, shown in the answer');
  const ops = await create({ name: 'ops-ana', role: 'operator', expires_in: '720h' });
  t.ok(Date.parse(ops.expires_at ?? '') > Date.now() + 700 * 3_600_000, 'expires_in sets expires_at');
  const short = await create({ name: 'short-lived', role: 'admin', expires_in: '3s' });

  // Bad input: 4xx JSON naming what is wrong.
  t.equal((await api('POST', '/v1/tokens', TOKEN, { name: 'x', role: 'root' })).status, 400, 'an unknown role');
  t.equal((await api('POST', '/v1/tokens', TOKEN, { name: 'ci-checks', role: 'viewer' })).status, 409, 'a name already taken');
  t.equal((await api('POST', '/v1/tokens', TOKEN, { name: 'y', role: 'viewer', expires_in: 'soon' })).status, 400, 'a bad duration');
  const big = await fetch(`${service.url}/v1/tokens`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'z'.repeat(10_000), role: 'viewer' }) });
  t.equal(big.status, 413, 'a body above 4 KiB is refused before it is read');

  // Roles.
  t.equal((await api('GET', '/v1/containers', ci.token)).status, 200, 'a viewer reads');
  const denied = await api('POST', '/v1/check', ci.token);
  t.equal(denied.status, 403, 'a viewer may not check');
  t.equal(denied.body.error, 'role operator required', 'the 403 names the missing role');
  t.equal((await api('GET', '/v1/tokens', ops.token)).status, 403, 'an operator may not list tokens');
  t.equal((await api('POST', '/v1/tokens', ops.token, { name: 'mine', role: 'admin' })).status, 403, 'nor make one');
  const denial = service.logs.find((l) => l.msg === 'HTTP API request refused: role' && (l.who as { name?: string })?.name === 'ci-checks');
  t.match(denial, { ip: '127.0.0.1', needed: 'operator', role: 'viewer' }, 'a denial is logged with who and the client IP');
  t.equal((await api('GET', '/v1/tokens', short.token)).status, 200, 'an admin token manages tokens');

  // A name on every decision: the operator's update, rollback and release.
  await pushNext(s, app);
  const stream = await fetch(`${service.url}/v1/events`, { headers: { authorization: 'Bearer e2e-people-tokens-events-0123' } });
  const updated = await api('POST', `/v1/update?container=${app.name}`, ops.token);
  t.match(updated, { status: 200, body: { summary: { updated: 1 } } }, 'an operator updates');
  const reader = stream.body?.getReader();
  let events = '';
  for (let i = 0; i < 50 && !events.includes('update_completed'); i++) events += new TextDecoder().decode((await reader?.read())?.value);
  await reader?.cancel();
  t.match(events, /"type":"update_completed".*"actor":\{"kind":"token","name":"ops-ana"\}/, 'the event names the token');
  await waitFor(async () => (hook.requests.length > 0 ? true : undefined), 30_000, 100).catch(() => undefined);
  t.ok(hook.requests.some((r) => r.body.includes('run by ops-ana')), `the notification names the token (.Actor): ${JSON.stringify(hook.requests.map((r) => r.body.slice(0, 200)))}`);
  t.equal((await api('POST', `/v1/rollback?container=${app.name}`, ops.token)).status, 200, 'an operator rolls back');
  t.equal((await api('POST', `/v1/release?container=${app.name}`, ops.token)).status, 200, 'and releases the hold');
  const audit = (await api('GET', `/v1/audit?container=${app.name}`, ci.token)).body.entries as { action: string; actor?: unknown }[];
  t.match(audit.map((e) => [e.action, e.actor]), [
    ['update', { kind: 'token', name: 'ops-ana' }],
    ['rollback', { kind: 'token', name: 'ops-ana' }],
    ['release', { kind: 'token', name: 'ops-ana' }],
  ], 'the audit trail names who updated, rolled back and released');
  const history = (await api('GET', '/v1/history', ci.token)).body.entries as { actor?: unknown }[];
  t.match(history.at(-1), { actor: { kind: 'token', name: 'ops-ana' } }, 'the run history too');

  // The dashboard with the viewer's pasted token: named, no operator controls, and the timeline says who.
  const browser = await launchChromium(t, { viewport: { width: 1280, height: 800 } });
  if (!browser) return;
  const { page } = browser;
  await page.goto(`${service.url}/ui/`);
  await page.fill('#token', ci.token);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])', { timeout: 30_000 });
  t.equal(await page.textContent('#who'), 'ci-checks (viewer)', 'the header names the token');
  t.ok(await page.isHidden('#check-all'), 'a viewer token is not offered "Check now"');
  t.ok(await page.isHidden(`button[data-update="${app.name}"]`), 'nor a row\'s Update');
  await page.click(`[data-timeline="${app.name}"]`);
  await page.waitForSelector('#timeline .actor', { timeout: 30_000 });
  t.same(await page.locator('#timeline .actor').allTextContents(), ['ops-ana', 'ops-ana', 'ops-ana'], 'the timeline says who released, rolled back and updated');

  // Listed without secrets, last use shown.
  const listed = (await api('GET', '/v1/tokens', TOKEN)).body.tokens as Record<string, unknown>[];
  t.equal(listed.length, 3);
  t.notOk(JSON.stringify(listed).includes(ci.token), 'no secret in the list');
  t.ok(listed.every((l) => !('hash' in l) && !('token' in l)), 'no hash either');
  t.ok(listed.find((l) => l.name === 'ci-checks')?.last_used_at, 'last_used_at is kept');

  // Expiry and revocation: 401 saying so.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(short.expires_at ?? '') - Date.now() + 500)));
  t.match(await api('GET', '/v1/containers', short.token), { status: 401, body: { error: 'API token expired' } }, 'an expired token is refused');
  t.equal((await api('DELETE', `/v1/tokens/${ci.id}`, TOKEN)).status, 200);
  t.match(await api('GET', '/v1/containers', ci.token), { status: 401, body: { error: 'API token revoked' } }, 'a revoked token is refused at once');
  t.equal((await api('DELETE', `/v1/tokens/${ci.id}`, TOKEN)).status, 404, 'revoking twice: unknown');

  // Across a restart: kept as hashes only; the revocation holds.
  t.equal(await service.stop(), 0);
  const kept = await dataDirText(dir);
  for (const secret of [ci.token, ops.token, short.token]) t.notOk(kept.includes(secret), 'no secret in the data directory');
  t.notOk(JSON.stringify(service.logs).includes(ops.token), 'no secret in the logs');
  service = await serve();
  t.equal((await api('GET', '/v1/containers', ops.token)).status, 200, 'a token survives a restart');
  t.match(await api('GET', '/v1/containers', ci.token), { status: 401, body: { error: 'API token revoked' } }, 'and so does its revocation');
  t.equal((await api('GET', '/v1/containers', TOKEN)).status, 200, 'the main token stays an admin credential');
});
