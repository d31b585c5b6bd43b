// A long unbroken line in a release note (docs/dashboard.md#release-notes) wraps inside its cell: with the
// notes expanded, the Checked, Links and Actions columns stay on screen and the table needs no sideways
// scrolling. Headless Chromium against the real HTTP API over a stubbed core.
import t from 'tap';
import { FINDINGS, withFinding, type Staleness } from '../../../core/index.js';
import { inPage, launchChromium, screenshot } from '../../helpers/chromium.js';
import { EVENTS_TOKEN, startApi, target, TOKEN } from './helpers/harness.js';

const LONG = `${'x'.repeat(3_000)} https://example.com/${'a'.repeat(2_000)}`;

const staleness = new Map<string, Staleness>([
  ['web', withFinding(withFinding({
    source: 'registry', stale: true, currentDigest: `sha256:${'a'.repeat(64)}`, latestDigest: `sha256:${'b'.repeat(64)}`,
  } as Staleness, FINDINGS.version, '2.4.0'), FINDINGS.releaseNotes, {
    url: 'https://github.com/acme/web/releases/tag/v2.4.0',
    entries: [{ version: 'v2.4.0', title: 'Two four', url: 'https://github.com/acme/web/releases/tag/v2.4.0', body: `## Fixed\n\n${LONG}\n\n\`${'c'.repeat(1_500)}\`` }],
  })],
]);

t.test('a long unbroken line in a release note wraps: Checked, Links and Actions stay on screen', { timeout: 120_000 }, async (t) => {
  const h = await startApi({}, { targets: [target('web', { image: 'acme/web:latest', imageLabels: { 'org.opencontainers.image.version': '2.3.0' } })], staleness });
  t.teardown(() => h.close());
  const width = 1280;
  const browser = await launchChromium(t, { viewport: { width, height: 900 } });
  if (!browser) return;
  const { page } = browser;
  await page.goto(`${h.url}/ui/#token=${TOKEN}&events-token=${EVENTS_TOKEN}`);
  await page.waitForSelector('#app:not([hidden])');
  await page.click('#check-all');
  const row = '#containers tbody tr[data-name="web"]';
  const notes = `${row} details.release-notes`;
  await page.waitForSelector(`${notes} summary`);
  await page.click(`${notes} summary`);
  await page.waitForSelector(`${notes} article`, { state: 'visible' });
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-notes-wrap', { fullPage: true })}`);

  const wrap = await inPage<{ scrollWidth: number; clientWidth: number; right: number }>(page,
    `(() => { const box = document.querySelector('.table-wrap'); return { scrollWidth: box.scrollWidth, clientWidth: box.clientWidth, right: box.getBoundingClientRect().right }; })()`);
  t.ok(wrap.scrollWidth <= wrap.clientWidth + 1, `the table needs no sideways scrolling (${wrap.scrollWidth} <= ${wrap.clientWidth})`);
  for (const label of ['Checked', 'Links', 'Actions']) {
    const box = await page.locator(`${row} [data-label="${label}"]`).boundingBox();
    t.ok(box && box.x >= 0 && box.x + box.width <= Math.min(width, wrap.right) + 1, `${label} is on screen (${JSON.stringify(box)})`);
  }
  t.ok(await page.locator(`${row} [data-label="Actions"] button`).first().isVisible(), 'the row\'s actions can be clicked');
  const article = await page.locator(`${notes} article`).boundingBox();
  t.ok(article && article.width < width / 2 + 200, `the notes wrap within their cell (${article?.width} px wide)`);
});
