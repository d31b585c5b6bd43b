// "Update all" in headless Chromium (docs/dashboard.md, docs/plans.md): the page shows the plan first — its steps
// in waves, what it leaves alone and why, as text — applies nothing on cancel, and on confirmation applies
// exactly that plan with ?plan=ID, so a digest that moved meanwhile is not what gets applied.
import t from 'tap';
import { FINDINGS, withFinding, type Staleness, type UpdatePlan } from '../../../core/index.js';
import { inPage, launchChromium, screenshot, untilInPage } from '../../helpers/chromium.js';
import { EVENTS_TOKEN, startApi, target, TOKEN } from './helpers/harness.js';

const digest = (c: string) => `sha256:${c.repeat(64)}`;
const staleTo = (d: string, extra: Partial<Staleness> = {}): Staleness => ({
  source: 'registry',
  stale: true,
  currentDigest: digest('0'),
  latestDigest: d,
  ...extra,
});

t.test('"Update all" shows the plan, then applies exactly it', { timeout: 180_000 }, async (t) => {
  const browser = await launchChromium(t, { viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  if (!browser) return;
  const applied: UpdatePlan[] = [];
  const h = await startApi(
    {},
    {
      targets: [target('web', { dependsOn: ['db'] }), target('db'), target('broken'), target('fine')],
      staleness: new Map<string, Staleness>([
        ['web', withFinding(withFinding(staleTo(digest('a'), { latestTag: '2.0.0' }), FINDINGS.tags, { currentTag: 'latest' }), FINDINGS.version, '2.0.0')],
        ['db', staleTo(digest('b'))],
        // A registry's error text is untrusted: it must show as text, never as markup.
        ['broken', { source: 'registry', stale: false, error: 'registry said <b id="injected">no</b>' }],
      ]),
      apply: async (plan) => {
        applied.push(plan);
        return { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
      },
    },
  );
  t.teardown(() => h.close());
  const { page } = browser;
  const updates: string[] = [];
  const plans: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/v1/update') updates.push(url.search);
    if (url.pathname === '/v1/plan') plans.push(request.method());
  });
  await page.goto(`${h.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');

  // Cancelled: the plan was asked for and shown, nothing applied.
  await page.click('#update-all');
  await page.waitForSelector('#confirm[open]');
  t.equal(await page.textContent('#confirm-text'), 'Update all 2 stale containers?');
  const steps = await inPage<string[]>(page, `[...document.querySelectorAll('#plan-steps li')].map((li) => li.textContent)`);
  t.same(steps, [`db → digest ${'b'.repeat(12)} (wave 1)`, 'web → 2.0.0 (wave 2)'], 'the steps in waves, dependencies first');
  const skipped = await inPage<string[]>(page, `[...document.querySelectorAll('#plan-skipped li')].map((li) => li.textContent)`);
  t.same(skipped, ['broken: check failed: registry said <b id="injected">no</b>'], 'what it leaves alone, and why');
  t.equal(await inPage<boolean>(page, `document.getElementById('injected') === null`), true, 'an untrusted reason is text, not markup');
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-plan')}`);
  await page.click('#confirm button[value=cancel]');
  await untilInPage(page, `!document.getElementById('confirm').open`);
  t.same(plans, ['POST']);
  t.same(updates, [], 'cancelled: nothing applied');
  t.equal(applied.length, 0);

  // Confirmed: the plan shown is applied, even though db's tag moved to another digest meanwhile.
  await page.click('#update-all');
  await page.waitForSelector('#confirm[open]');
  h.world.staleness.set('db', staleTo(digest('c')));
  await page.click('#confirm-ok');
  await untilInPage(page, `!document.getElementById('confirm').open`);
  // The page re-checks once the apply answered: the stale rows are drawn again.
  for (let i = 0; i < 300 && applied.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
  t.equal(updates.length, 1, 'one apply');
  t.match(updates[0], /^\?plan=[0-9a-f-]{36}$/, 'the apply names the plan, no filter');
  t.same(applied.map((p) => [p.target.name, p.staleness.latestDigest]), [
    ['db', digest('b')],
    ['web', digest('a')],
  ], 'exactly the planned digests, in the planned order');
});

t.test("a row's Update asks about the planned candidate and applies exactly it", { timeout: 180_000 }, async (t) => {
  const browser = await launchChromium(t, { viewport: { width: 1280, height: 900 }, colorScheme: 'light' });
  if (!browser) return;
  const applied: UpdatePlan[] = [];
  const h = await startApi(
    {},
    {
      targets: [target('db'), target('cache')],
      staleness: new Map<string, Staleness>([
        ['db', staleTo(digest('b'))],
        ['cache', staleTo(digest('e'))],
      ]),
      apply: async (plan) => {
        applied.push(plan);
        return { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
      },
    },
  );
  t.teardown(() => h.close());
  const { page } = browser;
  const updates: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/v1/update') updates.push(url.search);
  });
  await page.goto(`${h.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');
  await page.click('#check-all');
  await page.waitForSelector('button[data-update="db"]:not([disabled])');
  await page.click('button[data-update="db"]');
  await page.waitForSelector('#confirm[open]');
  t.equal(await page.textContent('#confirm-text'), `Update db to digest ${'b'.repeat(12)}?`);
  // The tag moves while the person reads the question.
  h.world.staleness.set('db', staleTo(digest('c')));
  await page.click('#confirm-ok');
  for (let i = 0; i < 300 && applied.length < 1; i++) await new Promise((r) => setTimeout(r, 100));
  t.same(updates.length, 1);
  t.match(updates[0], /^\?plan=[0-9a-f-]{36}$/, 'applied through the plan');
  t.same(applied.map((p) => [p.target.name, p.staleness.latestDigest]), [['db', digest('b')]], 'the digest asked about, only that container');
});
