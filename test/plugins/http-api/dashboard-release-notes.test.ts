// Versions and release notes in the dashboard (docs/dashboard.md#release-notes), in headless Chromium against
// the real HTTP API over a stubbed core: a `latest`-tagged container shows its candidate's version, not a
// digest (the digest folded, on demand); its release notes expand per row, Markdown rendered; a hostile note
// (a <script>, raw HTML with an event handler, a javascript: link, an <img onerror>) is shown inert: no script
// runs, no element comes from the note's HTML, and only the http(s) link is a link. The page signs in from a
// link whose fragment holds the tokens (the demo's), dropping them from the address bar.
import t from 'tap';
import type { Staleness } from '../../../core/index.js';
import { launchChromium, screenshot, untilInPage } from '../../helpers/chromium.js';
import { EVENTS_TOKEN, startApi, target, TOKEN } from './helpers/harness.js';
import { asStaleness } from '../../helpers/staleness.js';

const HOSTILE = [
  '## Fixed',
  '- **crash** on start, see [the issue](https://github.com/acme/web/issues/1)',
  '- [click me](javascript:window.__pwned=1)',
  '<script>window.__pwned = 2</script>',
  '<img src=x onerror="window.__pwned=3"><b onclick="window.__pwned=4">raw html</b>',
  '`<code>` stays text',
].join('\n');

const staleness = new Map<string, Staleness>([
  ['web', asStaleness({
    source: 'registry', stale: true, currentDigest: `sha256:${'a'.repeat(64)}`, latestDigest: `sha256:${'b'.repeat(64)}`, latestVersion: '2.4.0',
    releaseNotes: {
      url: 'https://github.com/acme/web/releases/tag/v2.4.0',
      entries: [
        { version: 'v2.4.0', title: 'Two four', url: 'https://github.com/acme/web/releases/tag/v2.4.0', body: HOSTILE },
        { version: 'v2.3.1', title: 'Two three one', url: 'javascript:window.__pwned=5', body: 'Plain *text*.' },
      ],
    },
  })],
]);

t.test('the candidate\'s version, release notes expanded, hostile Markdown inert', { timeout: 120_000 }, async (t) => {
  const h = await startApi({}, { targets: [target('web', { image: 'acme/web:latest', imageLabels: { 'org.opencontainers.image.version': '2.3.0' } })], staleness });
  t.teardown(() => h.close());
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 } });
  if (!browser) return;
  const { page } = browser;
  const dialogs: string[] = [];
  page.on('dialog', (d) => void (dialogs.push(d.message()), d.dismiss()));

  // Signed in by a link with the tokens in its fragment (what the demo prints), which leaves the address bar at once.
  await page.goto(`${h.url}/ui/#token=${TOKEN}&events-token=${EVENTS_TOKEN}`);
  await page.waitForSelector('#app:not([hidden])');
  t.equal(await page.evaluate('location.hash'), '', 'the tokens are gone from the address bar');
  t.equal(await page.evaluate(`sessionStorage.getItem('tw-events-token')`), EVENTS_TOKEN, 'the live feed\'s token is kept for the session');
  await page.click('#check-all');
  const row = '#containers tbody tr[data-name="web"]';
  await untilInPage(page, `document.querySelector('${row} [data-label="Latest"] .version')?.textContent === '2.4.0'`);
  t.equal(await page.textContent(`${row} [data-label="Current"] .version`), '2.3.0', 'the running image\'s version label');
  t.equal(await page.textContent(`${row} [data-label="Latest"] .version`), '2.4.0', 'the candidate\'s version, not a digest');
  t.equal(await page.isVisible(`${row} [data-label="Latest"] .digest`), false, 'the digest on demand only');
  await page.click(`${row} [data-label="Latest"] details.digests summary`);
  t.equal(await page.isVisible(`${row} [data-label="Latest"] .digest`), true, 'shown when asked for');
  t.equal(await page.getAttribute(`${row} [data-label="Links"] a`, 'href'), 'https://github.com/acme/web/releases/tag/v2.4.0', 'the release-notes link');

  const notes = `${row} details.release-notes`;
  t.equal(await page.textContent(`${notes} summary`), 'release notes (2)');
  t.equal(await page.isVisible(`${notes} article`), false, 'folded until asked for');
  await page.click(`${notes} summary`);
  await page.waitForSelector(`${notes} article`, { state: 'visible' });
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-release-notes', { fullPage: true })}`);
  const first = `${notes} article:nth-of-type(1)`;
  t.equal(await page.textContent(`${first} h3`), 'Two four');
  t.equal(await page.textContent(`${first} h5`), 'Fixed', 'Markdown rendered: a heading');
  t.equal(await page.textContent(`${first} strong`), 'crash');
  const hrefs = await page.$$eval(`${notes} a`, (as) => as.map((a) => a.getAttribute('href')));
  t.same(hrefs, ['https://github.com/acme/web/releases/tag/v2.4.0', 'https://github.com/acme/web/issues/1'], 'only http(s) links are links');
  t.match(await page.textContent(first), 'click me', 'the javascript: link is its text');
  t.match(await page.textContent(first), '<script>window.__pwned = 2</script>', 'raw HTML shown as text');
  t.equal(await page.locator(`${notes} script, ${notes} img, ${notes} b, ${notes} [onclick], ${notes} [onerror]`).count(), 0, 'no element from the note\'s HTML');
  t.equal(await page.textContent(`${first} code`), '<code>', 'a code span is text');
  // Clicking what would have been the hostile elements runs nothing.
  await page.click(`${first} li:nth-of-type(2)`);
  await page.click(`${notes} article:nth-of-type(2) h3`);
  t.equal(await page.evaluate('window.__pwned'), undefined, 'no script ran');
  t.same(dialogs, []);

  // Expanded stays expanded when the table is drawn again (a check).
  await page.click('#check-all');
  await untilInPage(page, `document.querySelector('${row} [data-label="Latest"] .version')?.textContent === '2.4.0'`);
  t.equal(await page.isVisible(`${notes} article`), true, 'still expanded after a redraw');
});
