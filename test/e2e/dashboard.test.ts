// The dashboard as a person uses it (docs/dashboard.md), in headless Chromium against the real binary,
// the private engine and the real registry: a wrong token is told so; sign in; "Check now" marks a
// freshly pushed image stale; "Update" with its confirmation replaces the container and the row turns
// up to date with the new digest while the live feed shows the events; a full update started by curl
// shows in the feed and the page catches up. Screenshots, wide and narrow, go to .tap/screenshots/.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import type { Page } from 'playwright-core';
import { launchChromium, screenshot, untilInPage, untilText } from '../helpers/chromium.js';
import { docker, requireEnv } from '../helpers/env.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-dashboard-token-0123456789';
const EVENTS_TOKEN = 'e2e-dashboard-events-0123456789';
const SOURCE = 'https://git.example.test/acme/web';
const DOCS = 'https://docs.example.test/web';

const rowOf = (page: Page, name: string) => page.locator(`#containers tbody tr[data-name="${name}"]`);
const feedText = (page: Page): Promise<string> => page.locator('#feed').innerText();

t.test('sign in, check, update with a click, and follow an update started elsewhere', { timeout: 240_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 } });
  if (!browser) return;
  const { page } = browser;
  const engine = docker(env);
  const prefix = testPrefix('e2e-dashboard');
  const web = `${prefix}-web`;
  const db = `${prefix}-db`;
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });

  const labels = { 'org.opencontainers.image.source': SOURCE, 'org.opencontainers.image.documentation': DOCS };
  const cmd = QUICK_STOP_CMD; // stops at once on SIGTERM, so a replacement does not wait out the grace period
  const webV1 = await pushImage({ registry: env.registry, repo: `${prefix}/web`, marker: `${prefix}-web-1`, labels, cmd });
  const dbV1 = await pushImage({ registry: env.registry, repo: `${prefix}/db`, marker: `${prefix}-db-1`, cmd });
  for (const [name, image] of [[web, webV1], [db, dbV1]] as const) {
    await pullImage(engine, image.ref);
    await runContainer(engine, { name, image: image.ref });
  }

  let service: RunningService | undefined;
  t.teardown(async () => void (await service?.stop()));
  service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'dashboard,check,update,containers,history,events,health',
    '--http-api-token', TOKEN,
    '--http-api-events-token', EVENTS_TOKEN,
    web, db,
  ]);
  const url = service.url;
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));

  // A wrong token: told so, nothing shown.
  await page.goto(`${url}/`);
  t.equal(new URL(page.url()).pathname, '/ui/', '/ leads to the dashboard');
  await page.fill('#token', 'not-the-token');
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#login-error:not([hidden])');
  t.match(await page.textContent('#login-error'), /Wrong token/);
  t.ok(await page.isHidden('#app'), 'the containers stay hidden');

  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');
  t.equal(await page.locator('#containers tbody tr').count(), 2, 'both watched containers are listed');
  t.match(await rowOf(page, web).innerText(), /running/);

  // A new image on the tag; "Check now" marks the row stale with the pushed digest.
  const webV2 = await pushImage({ registry: env.registry, repo: `${prefix}/web`, marker: `${prefix}-web-2`, labels, cmd });
  await page.click('#check-all');
  await page.waitForSelector(`#containers tbody tr.stale[data-name="${web}"]`);
  t.match(await rowOf(page, web).innerText(), /available/);
  t.equal(await rowOf(page, web).locator('[data-label="Latest"] .digest').getAttribute('title'), webV2.digest, 'latest digest is the pushed one');
  t.equal(await rowOf(page, web).locator('[data-label="Current"] .digest').getAttribute('title'), webV1.digest, 'current digest is the running one');
  t.equal(await rowOf(page, web).locator('a', { hasText: 'source' }).getAttribute('href'), SOURCE, 'source link from the OCI label');
  t.equal(await rowOf(page, web).locator('a', { hasText: 'docs' }).getAttribute('href'), DOCS, 'documentation link from the OCI label');
  t.match(await rowOf(page, db).innerText(), /up to date/);
  await untilText(page, '#feed', 'scan_completed');
  t.comment(`screenshot: ${await screenshot(page, 'e2e-dashboard-stale-wide')}`);

  // "Update" asks first, naming the container and the new digest; confirmed, the row turns up to date.
  await rowOf(page, web).locator('button[data-update]').click();
  await page.waitForSelector('#confirm[open]');
  t.equal(await page.textContent('#confirm-text'), `Update ${web} to digest ${webV2.digest.slice(7, 19)}?`);
  await page.click('#confirm-ok');
  const currentDigest = (name: string): string =>
    `document.querySelector('#containers tbody tr[data-name="${name}"] [data-label="Current"] .digest')?.getAttribute('title')`;
  const isStaleRow = (name: string): string => `document.querySelector('#containers tbody tr[data-name="${name}"]').classList.contains('stale')`;
  await untilInPage(page, `!${isStaleRow(web)} && ${currentDigest(web)} === ${JSON.stringify(webV2.digest)}`, 60_000);
  t.match(await rowOf(page, web).innerText(), /up to date/, 'the row is up to date');
  const feed = await feedText(page);
  t.match(feed, new RegExp(`update_started ${web}`), 'the feed showed update_started');
  t.match(feed, new RegExp(`update_completed ${web}`), 'and update_completed');
  const running = await engine.getContainer(web).inspect();
  const pulled = await engine.getImage(webV2.ref).inspect();
  t.equal(running.Image, pulled.Id, 'the engine really runs the new image');
  t.equal(running.State.Running, true);

  // A full update started by curl: the feed shows it within a second of the events, and the page
  // re-checks, so the db row ends up to date on its new image too.
  const dbV2 = await pushImage({ registry: env.registry, repo: `${prefix}/db`, marker: `${prefix}-db-2`, cmd });
  await page.click('#check-all');
  await page.waitForSelector(`#containers tbody tr.stale[data-name="${db}"]`);
  const curl = await promisify(execFile)('curl', ['-sS', '-X', 'POST', '-H', `Authorization: Bearer ${TOKEN}`, `${url}/v1/update`]);
  t.match(JSON.parse(curl.stdout), { summary: { updated: 1 } }, 'curl ran a full update');
  await untilText(page, '#feed', `update_completed ${db}`, 5_000);
  t.pass('the update started by curl is in the feed');
  await untilInPage(page, `${currentDigest(db)} === ${JSON.stringify(dbV2.digest)}`);
  t.notOk(await rowOf(page, db).getAttribute('class').then((c) => c?.includes('stale')), 'the db row caught up');
  t.ok((await page.locator('#history tbody tr').count()) >= 4, 'the runs table lists the checks and updates');

  t.notOk(requested.some((u) => u.includes(TOKEN)), 'the main token was never in an address');
  t.comment(`screenshot: ${await screenshot(page, 'e2e-dashboard-wide')}`);
  await page.setViewportSize({ width: 375, height: 812 });
  t.comment(`screenshot: ${await screenshot(page, 'e2e-dashboard-narrow')}`);
});
