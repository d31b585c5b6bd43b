// The dashboard shows versions, not only digests (docs/dashboard.md#versions), in headless Chromium against
// the real HTTP API over a stubbed core: a tag update reads `1.25.3-alpine → 1.25.4-alpine` with its kind
// and note, an image's version label is shown instead of its digest alone, a digest update keeps showing
// digests; before any check in this tab the versions come from /v1/containers/details (the last check
// anyone made), after "Check now" from the /v1/check records; Update asks for the new tag by name, and
// the live feed shows a tag update's update_completed as old_image → image.
//
// The record fields (`tag_policy`, `current_tag`, `latest_tag`, `update_kind`, `note`) are the real API's,
// written from the stub source's staleness answers (docs/tags.md#what-the-api-shows).
import t from 'tap';
import type { Page } from 'playwright-core';
import type { Staleness } from '../../../core/index.js';
import { launchChromium, screenshot, untilInPage, untilText } from '../../helpers/chromium.js';
import { bearer, EVENTS_TOKEN, startApi, target, TOKEN } from './helpers/harness.js';
import { asStaleness } from '../../helpers/staleness.js';

const digest = (c: string): string => `sha256:${c.repeat(64)}`;
const NOTE = 'Compose file /srv/app/compose.yml (service web) names nginx:1.25.3-alpine: change the file, or run Tidewatch with --compose-rewrite.';

const staleness = new Map<string, Staleness>([
  ['web', asStaleness({ source: 'registry', stale: true, tagPolicy: 'minor', currentTag: '1.25.3-alpine', latestTag: '1.25.4-alpine', updateKind: 'patch', currentDigest: digest('a'), latestDigest: digest('b'), note: NOTE })],
  ['db', asStaleness({ source: 'registry', stale: false, tagPolicy: 'digest', currentTag: '16', currentDigest: digest('c'), latestDigest: digest('c') })],
  ['cache', asStaleness({ source: 'registry', stale: true, tagPolicy: 'digest', currentTag: '7', updateKind: 'digest', currentDigest: digest('d'), latestDigest: digest('e') })],
  ['api', asStaleness({ source: 'registry', stale: false, tagPolicy: 'minor', currentTag: '2.3.1', currentDigest: digest('f'), latestDigest: digest('f') })],
]);
const targets = [
  target('web', { image: 'nginx:1.25.3-alpine' }),
  target('db', { image: 'postgres:16', imageLabels: { 'org.opencontainers.image.version': '16.4' } }),
  target('cache', { image: 'redis:7' }),
  target('api', { image: 'registry.local/acme/api:2.3.1' }),
];

const cell = (page: Page, name: string, label: string) => page.locator(`#containers tbody tr[data-name="${name}"] [data-label="${label}"]`);

t.test('versions, current → latest, the update kind and the note', { timeout: 120_000 }, async (t) => {
  const h = await startApi({}, {
    targets,
    staleness,
    // The runtime's answer for a tag update names the new reference (update_completed's image).
    apply: async (plan) => ({
      target: plan.target,
      outcome: 'updated',
      newImageId: digest('9'),
      ...(plan.target.name === 'web' ? { newImage: 'nginx:1.25.4-alpine' } : {}),
    }),
  });
  t.teardown(() => h.close());
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 700 } });
  if (!browser) return;
  const { page } = browser;

  // A check made elsewhere (the scheduler, curl): its answers reach the page through /v1/containers/details.
  const elsewhere = await fetch(`${h.url}/v1/check`, { method: 'POST', headers: bearer() });
  t.equal(elsewhere.status, 200);

  await page.goto(`${h.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');
  await untilInPage(page, `document.querySelector('#containers tbody tr[data-name="web"] [data-label="Latest"] .version')?.textContent === '1.25.4-alpine'`);
  t.equal(await cell(page, 'web', 'Current').locator('.version').textContent(), '1.25.3-alpine', 'before a check here: the details give the current tag');
  t.equal(await cell(page, 'web', 'Update').locator('.kind').textContent(), 'patch');

  await page.click('#check-all');
  await page.waitForSelector('#containers tbody tr.stale[data-name="web"]');
  // A tag update: current tag → latest tag, the kind, the note; the digests stay beside them to copy.
  t.equal(await cell(page, 'web', 'Current').locator('.version').textContent(), '1.25.3-alpine');
  t.equal(await cell(page, 'web', 'Latest').locator('.version').textContent(), '1.25.4-alpine');
  t.equal(await cell(page, 'web', 'Latest').locator('.digest').getAttribute('title'), digest('b'), 'the new digest is still there');
  t.equal(await cell(page, 'web', 'Update').locator('.kind').textContent(), 'patch');
  t.equal(await cell(page, 'web', 'Update').locator('.change').textContent(), '1.25.3-alpine → 1.25.4-alpine', 'current → latest');
  t.equal(await cell(page, 'web', 'Update').locator('.note').textContent(), NOTE, 'the note is shown');
  // The image's version label instead of a digest alone; up to date, so latest is the same version.
  t.equal(await cell(page, 'db', 'Current').locator('.version').textContent(), '16.4', 'current_image_version, not only the digest');
  t.equal(await cell(page, 'db', 'Latest').locator('.version').textContent(), '16.4');
  t.equal(await cell(page, 'db', 'Update').locator('.kind').count(), 0, 'up to date: no kind');
  // A digest update: digests as before (a tag followed by digest is no version), kind `digest`.
  t.equal(await cell(page, 'cache', 'Current').locator('.version').count(), 0, 'the tag of a digest-policy container is not shown as a version');
  t.equal(await cell(page, 'cache', 'Current').locator('.digest').getAttribute('title'), digest('d'));
  t.equal(await cell(page, 'cache', 'Latest').locator('.version').count(), 0, 'no newer version to name');
  t.equal(await cell(page, 'cache', 'Latest').locator('.digest').getAttribute('title'), digest('e'));
  t.equal(await cell(page, 'cache', 'Update').locator('.kind').textContent(), 'digest');
  // On a version policy and up to date: its tag is the version, current and latest.
  t.equal(await cell(page, 'api', 'Current').locator('.version').textContent(), '2.3.1');
  t.equal(await cell(page, 'api', 'Latest').locator('.version').textContent(), '2.3.1');
  t.equal(await cell(page, 'cache', 'Update').locator('.change').count(), 0, 'no version change to name');
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-versions-wide')}`);

  // Update asks for the new tag by name.
  await page.locator('#containers tbody tr[data-name="web"] button[data-update]').click();
  await page.waitForSelector('#confirm[open]');
  t.equal(await page.textContent('#confirm-text'), 'Update web to 1.25.4-alpine (patch)?');
  await page.click('#confirm button[value=cancel]');
  // Confirmed, the live feed shows where the container came from and where it is now.
  await page.locator('#containers tbody tr[data-name="web"] button[data-update]').click();
  await page.waitForSelector('#confirm[open]');
  await page.click('#confirm-ok');
  await untilText(page, '#feed', 'update_completed web: nginx:1.25.3-alpine → nginx:1.25.4-alpine');
  t.pass('update_completed names old_image → image');
  await page.locator('#containers tbody tr[data-name="cache"] button[data-update]').click();
  await page.waitForSelector('#confirm[open]');
  t.equal(await page.textContent('#confirm-text'), `Update cache to digest ${'e'.repeat(12)}?`, 'a digest update as before');
  await page.click('#confirm button[value=cancel]');

  await page.setViewportSize({ width: 375, height: 812 });
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-versions-narrow')}`);
});
