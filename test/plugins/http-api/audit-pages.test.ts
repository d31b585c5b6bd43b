// GET /v1/audit and /v1/history in pages (docs/http-api.md#pages) over the real state store and real HTTP:
// the newest page first, newest last within it, `next` until the last page, filters before paging, limit
// above 1000 and a foreign cursor refused with 400; and the dashboard's timeline, in headless Chromium,
// reads 50 changes at a time and follows `next` with "Older changes".
import t from 'tap';
import { createTidewatch, type TidewatchPlugin } from '../../../core/index.js';
import { STATE_STORE } from '../../../contracts/index.js';
import { createHttpApiPlugin } from '../../../plugins/http-api/index.js';
import { statePlugin } from '../../../plugins/state/index.js';
import { launchChromium, untilInPage } from '../../helpers/chromium.js';
import { ALL_ENDPOINTS, EVENTS_TOKEN, TOKEN, bearer, stubPlugin, target } from './helpers/harness.js';

const minute = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString();

async function startWithState(t: { teardown(fn: () => unknown): void }) {
  const api = createHttpApiPlugin();
  const tw = await createTidewatch({
    plugins: [
      { plugin: statePlugin, options: { dataDir: '' } },
      stubPlugin({ targets: [target('web'), target('db')], staleness: new Map(), apply: async (plan) => ({ target: plan.target, outcome: 'updated', newImageId: 'sha256:new' }), ready: async () => undefined }),
      { plugin: api, options: { endpoints: ALL_ENDPOINTS, token: TOKEN, eventsToken: EVENTS_TOKEN, host: '127.0.0.1', port: 0, rateLimit: 0 } },
    ] as TidewatchPlugin<object>[],
  });
  t.teardown(() => tw.close());
  const store = tw.services.get(STATE_STORE);
  if (!store || !api.address) throw new Error('no state store or no HTTP API');
  return { tw, store, url: api.address.url };
}

interface AuditPage {
  entries: { run_id: string; container: string }[];
  count: number;
  next?: string;
}

t.test('the audit trail in pages over HTTP', async (t) => {
  const { store, url } = await startWithState(t);
  for (let i = 0; i < 250; i++) {
    await store.appendAudit({ action: 'update', container: i % 5 === 0 ? 'db' : 'web', trigger: 'api', run_id: String(i), outcome: 'updated', time: minute(i) });
  }
  const get = async (query: string) => {
    const res = await fetch(`${url}/v1/audit${query}`, { headers: bearer() });
    return { status: res.status, body: (await res.json()) as AuditPage & { code?: string } };
  };
  const first = await get('');
  t.equal(first.status, 200);
  t.equal(first.body.count, 100, 'the default page is 100');
  t.same([first.body.entries[0]?.run_id, first.body.entries.at(-1)?.run_id], ['150', '249'], 'the newest 100, newest last');
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await get(`?container=web&limit=70${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(page.status, 200);
    t.ok(page.body.entries.every((e) => e.container === 'web'), 'filtered before paging');
    seen.unshift(...page.body.entries.map((e) => e.run_id));
    cursor = page.body.next;
    pages++;
  } while (cursor);
  t.equal(pages, 3, '200 entries of web in pages of 70');
  t.same(seen, Array.from({ length: 250 }, (_, i) => i).filter((i) => i % 5 !== 0).map(String), 'every entry once, in order');

  t.equal((await get('?limit=1000')).body.count, 250, 'limit 1000 is allowed');
  const over = await get('?limit=1001');
  t.equal(over.status, 400);
  t.match(over.body, { error: /invalid 'limit' parameter: at most 1000/ });
  const foreign = await get('?cursor=bm90LW91cnM');
  t.equal(foreign.status, 400);
  t.match(foreign.body, { code: 'TW_ERR_STATE_CURSOR' });
  t.equal((await get('?cursor=')).status, 400);
  t.same((await get('?limit=0')).body.entries, []);
});

t.test('run history in pages over HTTP, newest page first', async (t) => {
  const { tw, url } = await startWithState(t);
  for (let i = 0; i < 5; i++) await tw.check({ trigger: 'api' });
  const ids = tw.history.entries().map((e) => e.runId);
  const page1 = (await (await fetch(`${url}/v1/history?limit=2`, { headers: bearer() })).json()) as { entries: { run_id: string }[]; next?: string };
  t.same(page1.entries.map((e) => e.run_id), ids.slice(3));
  const page2 = (await (await fetch(`${url}/v1/history?limit=2&cursor=${page1.next}`, { headers: bearer() })).json()) as { entries: { run_id: string }[]; next?: string };
  t.same(page2.entries.map((e) => e.run_id), ids.slice(1, 3));
  t.equal((await fetch(`${url}/v1/history?limit=5000`, { headers: bearer() })).status, 400);
});

t.test("the dashboard's timeline pages with Older changes", { timeout: 120_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (!browser) return;
  const { store, url } = await startWithState(t);
  for (let i = 0; i < 120; i++) {
    await store.appendAudit({ action: 'update', container: 'web', trigger: 'api', run_id: String(i), outcome: 'updated', time: minute(i), from: { image: `r/web:${i}`, digest: '', image_id: '' }, to: { image: `r/web:${i + 1}`, digest: '', image_id: '' } });
  }
  const { page } = browser;
  await page.goto(`${url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.locator('[data-timeline="web"]').click();
  const count = "document.querySelectorAll('#timeline li:not(.older)').length";
  await untilInPage(page, `${count} === 50`);
  t.match(await page.locator('#timeline li').first().innerText(), /119 → 120/, 'the newest change first');
  await page.click('#timeline li.older button');
  await untilInPage(page, `${count} === 100`);
  await page.click('#timeline li.older button');
  await untilInPage(page, `${count} === 120`);
  t.equal(await page.locator('#timeline li.older').count(), 0, 'no button after the last page');
  t.match(await page.locator('#timeline li').last().innerText(), /0 → 1/, 'the oldest change last');
});
