// The Swagger page as a person uses it (docs/http-api-contract.md §4.4): headless Chromium (Debian's `chromium`, driven by
// playwright-core) opens /swagger/index.html, authorizes with the bare token and runs "Try it out" on
// POST /v1/check, which must answer 200.
import t from 'tap';
import { launchChromium, screenshot } from '../../helpers/chromium.js';
import { startApi, target, TOKEN } from './helpers/harness.js';

t.test('authorize and "Try it out" on POST /v1/check', { timeout: 120_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (!browser) return;
  const h = await startApi({}, { targets: [target('web')] });
  t.teardown(() => h.close());
  const { page } = browser;
  const checkResponses: number[] = [];
  page.on('response', (response) => {
    if (new URL(response.url()).pathname === '/v1/check') checkResponses.push(response.status());
  });

  const res = await page.goto(`${h.url}/swagger/index.html`);
  t.equal(res?.status(), 200);
  t.match(res?.headers()['content-security-policy'], /frame-ancestors 'none'/, 'the dashboard\'s policy, never framed');
  await page.waitForSelector('.opblock', { timeout: 30_000 });
  t.match(await page.title(), /Tidewatch/);

  // Authorize: the main token only, without "Bearer", in the BearerAuth field.
  await page.click('button.authorize');
  const bearerBlock = page.locator('.auth-container').filter({ hasText: 'BearerAuth' });
  await bearerBlock.locator('input').fill(TOKEN);
  await bearerBlock.locator('button.authorize').click();
  await page.click('button.btn-done');
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  t.notMatch(stored, TOKEN, 'the token is not kept in localStorage (persistAuthorization off)');

  // Try it out on POST /v1/check (tryItOutEnabled: the Execute button is there at once).
  const operation = page.locator('.opblock-post').filter({ hasText: '/v1/check' });
  await operation.locator('.opblock-summary').click();
  const tryItOut = operation.locator('button.try-out__btn');
  if ((await tryItOut.count()) > 0 && (await tryItOut.innerText()).trim() === 'Try it out') await tryItOut.click();
  await operation.locator('button.execute').click();
  const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
  await status.waitFor({ timeout: 30_000 });
  t.equal((await status.innerText()).trim(), '200', 'the page shows 200');
  t.same(checkResponses, [200], 'the browser really called /v1/check and got 200');
  const body = await operation.locator('.live-responses-table tr.response .response-col_description pre').first().innerText();
  t.match(body, /"name": "web"/);
  // Left for a person to look at after a run.
  await screenshot(page, 'swagger-ui');
  t.notOk(
    h.logs.some((l) => l.msg === 'HTTP API authentication failed'),
    'no failed authentication on the way',
  );
});
