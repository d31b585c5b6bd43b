// The dashboard's Runs panel (docs/dashboard.md#runs) in headless Chromium against the real HTTP API over a
// stubbed core: runs started by a schedule, the start-up run, a webhook, the API (all containers or chosen
// ones), a rollback, an approval and Home Assistant are each named by what started them, from the history
// record's `trigger`; and the panel, with its longest labels, stays within a 1440 x 900 screen (no cell
// outside the panel, nothing scrolled sideways).
import t from 'tap';
import { launchChromium, panelFit, screenshot, untilInPage } from '../../helpers/chromium.js';
import { EVENTS_TOKEN, startApi, target, TOKEN } from './helpers/harness.js';

// Oldest first, as they run; the table shows them newest first.
const RUNS = [
  { kind: 'update', trigger: 'startup', label: 'update at start-up' },
  { kind: 'update', trigger: 'schedule', label: 'scheduled update' },
  { kind: 'check', trigger: 'schedule', label: 'scheduled check' },
  { kind: 'update', trigger: 'webhook:registry-with-a-long-receiver-name', label: 'update by webhook registry-with-a-long-receiver-name' },
  { kind: 'update', trigger: 'api', label: 'update of all containers (API)' },
  { kind: 'update', trigger: 'api', targeted: true, label: 'update of chosen containers (API)' },
  { kind: 'update', trigger: 'rollback', targeted: true, label: 'rollback' },
  { kind: 'update', trigger: 'approval', targeted: true, label: 'update after approval' },
  { kind: 'update', trigger: 'mqtt', targeted: true, label: 'update from Home Assistant' },
] as const;

t.test('runs named by what started them, the panel within 1440 x 900', { timeout: 120_000 }, async (t) => {
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 } });
  if (!browser) return;
  const h = await startApi({}, { targets: [target('web'), target('db')] });
  t.teardown(() => h.close());
  for (const run of RUNS) {
    const filters = 'targeted' in run ? { filters: { containers: ['web'] } } : {};
    if (run.kind === 'check') await h.tw.check({ trigger: run.trigger, ...filters });
    else await h.tw.update({ trigger: run.trigger, ...filters });
  }
  const { page } = browser;
  await page.goto(`${h.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await untilInPage(page, `document.querySelectorAll('#history tbody tr').length === ${RUNS.length}`);
  const labels = await page.locator('#history tbody td.run-kind').allInnerTexts();
  t.same(labels, RUNS.map((r) => r.label).reverse(), 'each run by its trigger, newest first');
  t.match(await page.locator('#history tbody tr').first().innerText(), /0 \/ 0 \/ 0|\d+ \/ \d+ \/ \d+/, 'scanned / updated / failed');

  const fit = await panelFit(page, '#history', '#history th, #history td, #chart svg');
  t.ok(fit.panel.left >= 0 && fit.panel.right <= fit.width, `the Runs panel within the screen (${fit.panel.left}–${fit.panel.right} of ${fit.width})`);
  t.equal(fit.sideways, 0, 'the runs table does not scroll sideways');
  t.equal(fit.page, 0, 'nor does the page');
  t.equal(fit.outside, 0, 'every cell and the chart within the panel');
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-runs')}`);
});
