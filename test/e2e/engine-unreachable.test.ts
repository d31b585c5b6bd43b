// An engine that does not answer (docs/troubleshooting.md#the-engine-does-not-answer), the first thing a user
// with a wrong socket mount meets: the real binary with --host at a socket path where nothing is. `POST
// /v1/check` answers 503 TW_ERR_ENGINE_UNREACHABLE naming the engine and what to check (not a 500 quoting a
// connect error), and the dashboard, in headless Chromium, signs in and shows a banner naming that engine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { launchChromium, screenshot, untilInPage } from '../helpers/chromium.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-engine-down-token-0123456789';

t.test('a missing engine socket: 503 naming the engine on /v1/check, and a banner on the dashboard', { timeout: 180_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-no-engine-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const host = `unix://${join(dir, 'docker.sock')}`;
  const service = await startService(['--host', host, '--http-api-endpoints', 'dashboard,check,containers,health', '--http-api-token', TOKEN]);
  t.teardown(() => service.stop());

  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 503, res.text);
  const body = res.body as { error: string; code: string };
  t.equal(body.code, 'TW_ERR_ENGINE_UNREACHABLE');
  t.match(body.error, `the container engine at ${host} does not answer (ENOENT)`, 'names the engine and the failure');
  t.match(body.error, /check that the engine's socket is mounted at .*docker\.sock/, 'says what to check');
  t.notMatch(body.error, /plugin docker failed/, 'not the internal wrapping');

  const list = await call(`${service.url}/v1/containers`, { token: TOKEN });
  t.equal(list.status, 503, 'the container list says the same');
  t.equal((list.body as { code: string }).code, 'TW_ERR_ENGINE_UNREACHABLE');

  const browser = await launchChromium(t, { viewport: { width: 1280, height: 800 } });
  if (!browser) return;
  const { page } = browser;
  await page.goto(`${service.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.click('#login-form button[type="submit"]');
  await untilInPage(page, "!document.getElementById('engine-banner').hidden");
  const banner = await page.locator('#engine-banner').innerText();
  t.match(banner, 'The container engine does not answer', 'the banner says what is wrong');
  t.match(banner, host, 'and names the engine');
  t.ok(await page.locator('#app').isVisible(), 'the token was accepted: the page is signed in');
  t.notOk(await page.locator('#login-error').isVisible(), 'not reported as a sign-in failure');
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-engine-down')}`);
});
