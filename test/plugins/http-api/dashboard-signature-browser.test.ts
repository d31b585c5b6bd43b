// The dashboard's signature badge (docs/signatures.md#verdicts) in headless Chromium against the API over a
// stubbed core: a stale row shows its check record's verdict, a row without one shows no badge.
import t from 'tap';
import { FINDINGS, withFinding, type Staleness } from '../../../core/index.js';
import { launchChromium, untilInPage } from '../../helpers/chromium.js';
import { EVENTS_TOKEN, startApi, target, TOKEN } from './helpers/harness.js';

const digest = (c: string): string => `sha256:${c.repeat(64)}`;

t.test('a badge per verdict', { timeout: 120_000 }, async (t) => {
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
  if (!browser) return;
  const staleness = new Map<string, Staleness>();
  const names = ['signed', 'unsigned', 'plain'];
  for (const [i, name] of names.entries()) {
    const latest = digest(String(i + 1));
    const answer: Staleness = { source: 'registry', stale: true, currentDigest: digest('a'), latestDigest: latest };
    staleness.set(
      name,
      name === 'plain' ? answer : withFinding(answer, FINDINGS.signature, { verdict: name === 'signed' ? 'verified' : 'unsigned', digest: latest, reason: 'r', policy: 'enforce' }),
    );
  }
  const h = await startApi({}, { targets: names.map((n) => target(n)), staleness });
  t.teardown(() => h.close());
  const { page } = browser;
  await page.goto(`${h.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');
  await page.click('#check-all');
  await untilInPage(page, `document.querySelectorAll('#containers tbody tr.stale').length === 3`);
  const badge = (name: string) => page.locator(`#containers tbody tr[data-name="${name}"] .sig`);
  t.equal(await badge('signed').innerText(), 'verified');
  t.match(await badge('signed').getAttribute('class'), /sig-verified/);
  t.equal(await badge('unsigned').innerText(), 'unsigned');
  t.match(await badge('unsigned').getAttribute('class'), /sig-unsigned/);
  t.equal(await badge('plain').count(), 0, 'no badge when nothing was verified');
});
