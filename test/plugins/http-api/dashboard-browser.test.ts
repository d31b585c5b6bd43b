// The dashboard in headless Chromium against the API over a stubbed core (docs/dashboard.md): what
// needs many containers or a held run, which the real engine would make slow. The same page against
// the real binary, engine and registry is test/e2e/dashboard.test.ts.
//
// Measured here: the first load's transfer (≤ 150 KB) and the render time of 500 rows: within 200 ms, or,
// on a loaded machine, within RENDER_FLOOR_RATIO times a floor measured in the same page after each render
// (the browser parsing the markup of all 500 rows into a hidden table: work a full render cannot skip,
// slowed by load as the render is), the slowest floor of the page counting: load comes in bursts, and a render
// caught in one must not be held to a floor measured between two. A render that does much more than it
// should fails either way.
import t from 'tap';
import type { Page } from 'playwright-core';
import type { Staleness } from '../../../core/index.js';
import { inPage, launchChromium, screenshot, untilInPage, untilText } from '../../helpers/chromium.js';
import { EVENTS_TOKEN, gate, startApi, target, TOKEN, type Harness } from './helpers/harness.js';

const ROWS = 500;
const FIRST_LOAD_BUDGET = 150 * 1024;
const RENDER_BUDGET_MS = 200;
/**
 * Render time over the floor: measured 1.9-3.6 for a full render (3.6 with little load, where the 200 ms hold
 * anyway) and 0.4-3.3 for a filtered one, under loads of 10-38 on 2 cores; a render made to do its work six
 * times measured 13.4 (the render builds its markup in script, then the browser parses it).
 */
const RENDER_FLOOR_RATIO = 5;
const name = (i: number): string => `app-${String(i).padStart(3, '0')}`;
const isStale = (i: number): boolean => i % 7 === 0;
const isError = (i: number): boolean => i % 50 === 1;
const digest = (seed: string): string => `sha256:${Buffer.from(seed).toString('hex').padEnd(64, '0').slice(0, 64)}`;

function world(rows = ROWS): { targets: ReturnType<typeof target>[]; staleness: Map<string, Staleness> } {
  const targets = [];
  const staleness = new Map<string, Staleness>();
  for (let i = 0; i < rows; i++) {
    const labels: Record<string, string> = i % 5 === 0 ? { 'com.centurylinklabs.watchtower.scope': 'edge' } : {};
    targets.push(target(name(i), { image: `127.0.0.1:5101/demo/img${i % 4}:latest`, labels }));
    staleness.set(
      name(i),
      isError(i)
        ? { source: 'registry', stale: false, error: `registry said no for ${name(i)}` }
        : { source: 'registry', stale: isStale(i), currentDigest: digest(`c${i}`), latestDigest: digest(isStale(i) ? `n${i}` : `c${i}`) },
    );
  }
  return { targets, staleness };
}

const rowCount = (page: Page): Promise<number> => page.locator('#containers tbody tr').count();

async function signIn(page: Page, url: string, token = TOKEN): Promise<void> {
  await page.goto(`${url}/ui/`);
  await page.fill('#token', token);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
}

/** WCAG contrast ratio of two `rgb(...)` colours. */
function contrast(a: string, b: string): number {
  const lum = (css: string): number => {
    const [r, g, bl] = (css.match(/[\d.]+/g) ?? ['0', '0', '0']).slice(0, 3).map((v) => {
      const c = Number(v) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (bl ?? 0);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
}

/** The colour of an element's text and the first opaque background behind it. */
function colours(page: Page, selector: string): Promise<{ fg: string; bg: string }> {
  return inPage(
    page,
    `(() => {
      const el = document.querySelector(${JSON.stringify(selector)});
      let bg = 'rgba(0, 0, 0, 0)';
      for (let node = el; node && /rgba\\(0, 0, 0, 0\\)|transparent/.test(bg); node = node.parentElement) bg = getComputedStyle(node).backgroundColor;
      return { fg: getComputedStyle(el).color, bg };
    })()`,
  );
}

const STALE_SHOWN = `document.querySelectorAll('#containers tbody tr.stale').length > 0`;
const lastRenderMs = (page: Page): Promise<number> => inPage(page, 'window.__twLastRenderMs');

/**
 * The floor: the fastest of three parses of the full table's markup (all 500 rows, kept from the first call,
 * which comes after the full render of the check) into a hidden table of the same page, in ms.
 */
const renderFloorMs = (page: Page): Promise<number> =>
  inPage(
    page,
    `(() => {
      const html = (window.__twFloorHtml ??= document.querySelector('#containers tbody').innerHTML);
      const table = document.createElement('table');
      table.hidden = true;
      document.body.appendChild(table);
      const body = table.createTBody();
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        body.innerHTML = '';
        const started = performance.now();
        body.innerHTML = html;
        best = Math.min(best, performance.now() - started);
      }
      table.remove();
      return best;
    })()`,
  );

interface Render {
  readonly ms: number;
  readonly floorMs: number;
}

const lastRenderWithFloor = async (page: Page): Promise<Render> => ({ ms: await lastRenderMs(page), floorMs: await renderFloorMs(page) });

/** Within the idle budget, or within the ratio of the page's slowest floor when the machine is loaded. */
const withinBudget = (r: Render, floorMs: number): boolean => r.ms <= RENDER_BUDGET_MS || r.ms <= RENDER_FLOOR_RATIO * Math.max(floorMs, 1);
const shown = (r: Render): string => `${r.ms.toFixed(1)} ms (floor ${r.floorMs.toFixed(1)} ms, ratio ${(r.ms / Math.max(r.floorMs, 0.1)).toFixed(2)})`;

async function startWorld(t: { teardown(fn: () => unknown): void }, rows = ROWS): Promise<Harness> {
  const h = await startApi({}, world(rows));
  t.teardown(() => h.close());
  return h;
}

t.test('500 containers: first load, sign-in, check, filters, sort, render time', { timeout: 180_000 }, async (t) => {
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
  if (!browser) return;
  const h = await startWorld(t);
  const { page } = browser;

  const loaded: { url: string; bytes: number }[] = [];
  const listener = async (response: import('playwright-core').Response): Promise<void> => {
    loaded.push({ url: response.url(), bytes: (await response.body().catch(() => Buffer.alloc(0))).length });
  };
  page.on('response', listener);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(`${h.url}/ui/`);
  await page.waitForLoadState('networkidle');
  page.off('response', listener);
  const firstLoad = loaded.reduce((sum, r) => sum + r.bytes, 0);
  t.comment(`first load: ${loaded.length} responses, ${firstLoad} bytes (${loaded.map((r) => new URL(r.url).pathname).join(', ')})`);
  t.ok(firstLoad <= FIRST_LOAD_BUDGET, `first load ${firstLoad} bytes ≤ ${FIRST_LOAD_BUDGET}`);
  t.ok(loaded.every((r) => new URL(r.url).origin === h.url), 'nothing loaded from another origin');

  // A wrong token: a clear message, and the app stays hidden.
  await page.fill('#token', 'not-the-token');
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#login-error:not([hidden])');
  t.match(await page.textContent('#login-error'), /Wrong token/);
  t.ok(await page.isHidden('#app'));

  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');
  t.equal(await rowCount(page), ROWS, 'every container is a row');
  t.equal(await inPage(page, `sessionStorage.getItem('tw-token')`), TOKEN, 'the token is kept in the session');
  t.equal(await inPage(page, 'localStorage.length'), 0, 'and nowhere else');

  await page.click('#check-all');
  await untilInPage(page, STALE_SHOWN);
  const stale = Array.from({ length: ROWS }, (_, i) => i).filter((i) => isStale(i) && !isError(i));
  t.equal(await page.locator('#containers tbody tr.stale').count(), stale.length, 'the stale rows are marked');
  const checkRender = await lastRenderWithFloor(page);
  t.comment(`render of ${ROWS} checked rows: ${shown(checkRender)}`);
  const row7 = page.locator('#containers tbody tr[data-name="app-007"]');
  t.match(await row7.innerText(), /available/);
  t.match(await row7.locator('.digest').nth(1).getAttribute('title'), digest('n7'), 'latest digest in full on hover');
  await untilText(page, '#feed', 'scan_completed');
  t.pass('the live feed showed the check');

  // Filters, search and sorting, each a render of up to 500 rows.
  const renders: Render[] = [];
  const lastRender = async (): Promise<void> => {
    renders.push(await lastRenderWithFloor(page));
  };
  await page.check('#stale-only');
  t.equal(await rowCount(page), stale.length, 'stale only');
  await lastRender();
  await page.uncheck('#stale-only');
  await page.check('#errors-only');
  t.equal(await rowCount(page), ROWS / 50, 'errors only');
  t.match(await page.locator('#containers tbody tr').first().innerText(), /registry said no/);
  await page.uncheck('#errors-only');
  await page.selectOption('#scope', 'edge');
  t.equal(await rowCount(page), ROWS / 5, 'by scope');
  await lastRender();
  await page.selectOption('#scope', '');
  await page.fill('#search', 'img3');
  t.equal(await rowCount(page), ROWS / 4, 'search by image');
  await page.fill('#search', 'app-12');
  t.equal(await rowCount(page), 10, 'search by name (app-120 to app-129)');
  await page.fill('#search', '');
  await page.click('th button[data-sort="name"]');
  t.equal(await page.locator('#containers tbody tr').first().getAttribute('data-name'), name(ROWS - 1), 'sorted by name, descending');
  t.equal(await page.getAttribute('th button[data-sort="name"]', 'aria-sort'), 'descending');
  await lastRender();
  t.comment(`filter and sort renders: ${renders.map(shown).join('; ')}`);
  const floorMs = Math.max(checkRender.floorMs, ...renders.map((r) => r.floorMs));
  t.ok(withinBudget(checkRender, floorMs), `render of ${ROWS} rows ${checkRender.ms.toFixed(1)} ms: ≤ ${RENDER_BUDGET_MS} ms or ≤ ${RENDER_FLOOR_RATIO}× the floor (${floorMs.toFixed(1)} ms)`);
  t.ok(renders.every((r) => withinBudget(r, floorMs)), 'every filter and sort renders within the budget');

  // Nothing sent the main token in an address.
  t.notOk(requests.some((u) => u.includes(TOKEN)), 'the main token never appears in a request address');
  t.ok(requests.every((u) => !u.includes('access_token=') || u.includes(encodeURIComponent(EVENTS_TOKEN))));

  await page.click('th button[data-sort="name"]');
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-500-wide-light', { fullPage: false })}`);
});

t.test('keyboard: Update asks first, Escape cancels, and a busy full update shows the 429 message', { timeout: 120_000 }, async (t) => {
  const browser = await launchChromium(t, { viewport: { width: 1280, height: 800 } });
  if (!browser) return;
  const h = await startWorld(t);
  const { page } = browser;
  const updates: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/v1/update') updates.push(request.url());
  });
  await signIn(page, h.url);
  await page.waitForSelector('#app:not([hidden])');
  await page.focus('#check-all');
  await page.keyboard.press('Enter');
  await untilInPage(page, STALE_SHOWN);
  // Results arrive one by one: app-007's Update is enabled once its own has (a CI run here under load focused it
  // before, while it was still disabled).
  await page.waitForSelector('button[data-update="app-007"]:not([disabled])');

  await page.focus('button[data-update="app-007"]');
  // The table is drawn again (a filter's input event, as a result arriving would): the focus stays on the button.
  await page.evaluate(`document.getElementById('search').dispatchEvent(new Event('input'))`);
  t.equal(await inPage(page, `document.activeElement?.getAttribute('data-update')`), 'app-007', 'a render keeps the keyboard focus on its button');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#confirm[open]');
  t.match(await page.textContent('#confirm-text'), new RegExp(`Update app-007 to digest ${digest('n7').slice(7, 19)}`), 'names the container and the new digest');
  await page.keyboard.press('Escape');
  await untilInPage(page, `!document.getElementById('confirm').open`);
  t.same(updates, [], 'cancelled: no update requested');

  // A full update held in the middle; the page's own full update gets the API's 429 and says so.
  const held = gate();
  h.world.apply = async (plan) => {
    await held.promise;
    return { target: plan.target, outcome: 'updated', newImageId: 'sha256:new' };
  };
  const background = fetch(`${h.url}/v1/update`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
  await untilText(page, '#feed', 'update_started');
  t.pass('the update started by another client shows in the feed');
  await page.click('#update-all');
  await page.waitForSelector('#confirm[open]');
  t.match(await page.textContent('#confirm-text'), /Update all \d+ stale containers\?/);
  await page.click('#confirm-ok');
  await page.waitForSelector('#message:not([hidden])');
  t.equal(await page.textContent('#message'), 'another update is already running', 'the API\'s message, not a generic one');
  held.open();
  t.equal((await background).status, 200);
});

t.test('light and dark, narrow and wide: readable, no page-wide horizontal scroll', { timeout: 180_000 }, async (t) => {
  const h = await startWorld(t, 24);
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const [label, viewport] of [
      ['narrow', { width: 375, height: 812 }],
      ['wide', { width: 1440, height: 900 }],
    ] as const) {
      const browser = await launchChromium(t, { viewport, colorScheme });
      if (!browser) return;
      const { page } = browser;
      await signIn(page, h.url);
      await page.waitForSelector('#app:not([hidden])');
      await page.click('#check-all');
      // The check's rows arrive from the event stream one by one: a stale row can be drawn before a failed one.
      const measured = ['body', '#containers tbody tr.stale td.update-yes', '#containers td.err', 'th button', '#check-all'];
      await untilInPage(page, measured.map((selector) => `document.querySelector(${JSON.stringify(selector)}) !== null`).join(' && '));
      const width = await inPage<number>(page, 'document.documentElement.scrollWidth');
      t.ok(width <= viewport.width, `${colorScheme} ${label}: page ${width}px wide in a ${viewport.width}px window`);
      for (const selector of measured) {
        const { fg, bg } = await colours(page, selector);
        const ratio = contrast(fg, bg);
        t.ok(ratio >= 4.5, `${colorScheme} ${label} ${selector}: contrast ${ratio.toFixed(1)} ≥ 4.5`);
      }
      const bodyBg = (await colours(page, 'body')).bg;
      t.equal(contrast(bodyBg, colorScheme === 'dark' ? 'rgb(0, 0, 0)' : 'rgb(255, 255, 255)') < 1.5, true, `${colorScheme}: follows prefers-color-scheme`);
      t.comment(`screenshot: ${await screenshot(page, `dashboard-${label}-${colorScheme}`)}`);
      await browser.context.close();
    }
  }
});
