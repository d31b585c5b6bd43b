// The dashboard's "Waiting for you" and windows (docs/dashboard.md, docs/policies.md#approvals), in headless
// Chromium against the real binary, engine and registry: the Approve confirmation promises "applied in its
// update window" only for a container whose windows are closed (and says when the next opens); a container
// without a window is told "applied now" and has no Approve now; Approve now (approve with now=true) applies at
// once outside the window, after its own confirmation.
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { launchChromium, screenshot } from '../helpers/chromium.js';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-dashboard-approvals-token-0123';

interface Approval {
  id: string;
  container: string;
  state: string;
  decided_by?: string;
}

t.test('the Approve confirmation names the window only when there is one; Approve now applies outside it', { timeout: 240_000 }, async (t) => {
  const s = await scenario(t, 'e2e-dash-approve-now');
  if (!s) return;
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 } });
  if (!browser) return;
  const { page } = browser;
  // `closed`: a window that opens once a year; `open`: no window at all (its label overrides the global one).
  const closed = await runningOn(s, 'closed');
  const open = await runningOn(s, 'open', { run: { labels: { 'tidewatch.update-window': 'always' } } });
  for (const r of [closed, open]) await pushNext(s, r);
  const service = await startService([
    '--host', s.env.dockerHost, '--update-grace-period', '1s', '--approval', 'all', '--update-window', '0 0 1 1 *;1m;UTC',
    '--http-api-endpoints', 'dashboard,check,update,containers,approvals', '--http-api-token', TOKEN, `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  t.match((await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })).body, { summary: { updated: 0, skipped: 2 } });
  await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });

  await page.goto(`${service.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#approvals-panel:not([hidden])');
  const rowOf = (name: string) => `#approvals li[data-approval-row="${name}"]`;
  await page.waitForSelector(rowOf(closed.name));
  t.equal(await page.locator(`${rowOf(open.name)} button[data-decide="approve-now"]`).count(), 0, 'no window: no Approve now');
  t.equal(await page.locator(`${rowOf(closed.name)} button[data-decide="approve-now"]`).count(), 1, 'a closed window: Approve now');

  // No window: Approve applies now, and says so.
  await page.click(`${rowOf(open.name)} button[data-decide="approve"]`);
  await page.waitForSelector('dialog#confirm[open]');
  const openText = (await page.textContent('#confirm-text')) ?? '';
  t.match(openText, /It is applied now\./);
  t.notMatch(openText, /update window/, 'no window promised where there is none');
  await page.click('dialog#confirm button[value=cancel]');
  await page.waitForSelector('dialog#confirm:not([open])', { state: 'attached' });

  // A closed window: Approve waits for it and says when it opens.
  await page.click(`${rowOf(closed.name)} button[data-decide="approve"]`);
  await page.waitForSelector('dialog#confirm[open]');
  t.match(await page.textContent('#confirm-text'), /It is applied in its update window, which opens /);
  await page.click('dialog#confirm button[value=cancel]');
  await page.waitForSelector('dialog#confirm:not([open])', { state: 'attached' });

  // Approve now: its own confirmation, then applied at once.
  await page.click(`${rowOf(closed.name)} button[data-decide="approve-now"]`);
  await page.waitForSelector('dialog#confirm[open]');
  t.match(await page.textContent('#confirm-text'), new RegExp(`Approve the update of ${closed.name} and apply it now, outside its update window\\?`));
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-approve-now')}`);
  await page.click('#confirm-ok');
  await waitFor(async () => {
    const info = await s.engine.getContainer(closed.name).inspect().catch(() => undefined);
    return info && info.Image !== closed.image.configDigest && info.State.Running ? info : undefined;
  }, 90_000, 500);
  const approvals = ((await call(`${service.url}/v1/approvals`, { token: TOKEN })).body as { approvals: Approval[] }).approvals;
  await waitFor(async () => {
    const list = ((await call(`${service.url}/v1/approvals`, { token: TOKEN })).body as { approvals: Approval[] }).approvals;
    return list.some((a) => a.container === closed.name && a.state === 'applied') ? true : undefined;
  }, 30_000, 250);
  t.ok(approvals.some((a) => a.container === closed.name && a.decided_by === 'dashboard'), 'decided by the dashboard');
  t.equal((await s.engine.getContainer(open.name).inspect()).Image, open.image.configDigest, 'the other one still waits for its decision');

  // Deferred from the dashboard: the row says who deferred it (docs/people.md#a-name-on-every-decision).
  await page.click(`${rowOf(open.name)} button[data-decide="defer"]`);
  await page.waitForSelector('dialog#confirm[open]');
  await page.click('#confirm-ok');
  await page.waitForSelector(`${rowOf(open.name)} .actor`, { timeout: 30_000 });
  t.match(await page.locator(rowOf(open.name)).innerText(), /deferred by main until /, 'the approvals panel names who deferred');
});
