// "Adding a gate that shows a finding touches only its own folder" (docs/plugins.md#findings): the plugin of
// test/fixtures/plugins/finding-gate declares a finding, writes it in a review tap and gates on it, with no
// line outside its folder. Loaded beside the real HTTP API over a stubbed runtime, its finding shows in
// /v1/check's record, /v1/containers/details, the metrics, the update_skipped event, a notification
// template's data and the dashboard (headless Chromium), none of which knows the plugin.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { createTidewatch, type EventPayloads, type TidewatchEvent } from '../../core/index.js';
import { createHttpApiPlugin } from '../../plugins/http-api/index.js';
import { runOutcome } from '../../plugins/notify/outcome.js';
import { messageRenderer } from '../../plugins/notify/render.js';
import { compileTemplate } from '../../plugins/notify/template/index.js';
import { launchChromium, untilInPage } from '../helpers/chromium.js';
import { memoryLogger } from '../helpers/memory-logger.js';
import { CRITICAL_LABEL, findingGatePlugin } from '../fixtures/plugins/finding-gate/index.js';
import { ALL_ENDPOINTS, bearer, EVENTS_TOKEN, stubPlugin, target, TOKEN, type StubWorld } from '../plugins/http-api/helpers/harness.js';

const FOLDER = new URL('../fixtures/plugins/finding-gate/', import.meta.url);
const digest = (c: string): string => `sha256:${c.repeat(64)}`;
const LINE = '2 critical (stand-in)';

t.test('the plugin is its folder: it imports only the core\'s public surface', async (t) => {
  const files = readdirSync(FOLDER);
  t.same(files, ['index.ts'], 'one file');
  const imports = [...readFileSync(new URL('index.ts', FOLDER), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]);
  t.same(imports, ['../../../../core/index.js'], 'core/index.ts only: no built-in plugin, no display, no core internals');
});

t.test('a gate\'s finding in the record, /details, metrics, events, notifications and the dashboard', { timeout: 180_000 }, async (t) => {
  const world: StubWorld = {
    targets: [
      target('web', { image: 'acme/web:1', imageLabels: { [CRITICAL_LABEL]: '2' } }),
      target('db', { image: 'acme/db:16' }),
    ],
    staleness: new Map([
      ['web', { source: 'registry', stale: true, currentDigest: digest('a'), latestDigest: digest('b') }],
      ['db', { source: 'registry', stale: true, currentDigest: digest('c'), latestDigest: digest('d') }],
    ]),
    apply: async (plan) => ({ target: plan.target, outcome: 'updated', newImageId: digest('9') }),
    ready: async () => undefined,
  };
  const api = createHttpApiPlugin();
  const tw = await createTidewatch({
    logger: memoryLogger(),
    plugins: [
      stubPlugin(world),
      // The one line server/builtins.ts would hold for a built-in.
      findingGatePlugin,
      { plugin: api, options: { endpoints: ALL_ENDPOINTS, token: TOKEN, eventsToken: EVENTS_TOKEN, host: '127.0.0.1', port: 0, rateLimit: 0 } },
    ],
  });
  t.teardown(() => tw.close());
  const events: TidewatchEvent[] = [];
  tw.hooks.event.tap('test', (event) => void events.push(event));
  const url = api.address?.url as string;

  // The check record: the finding by key and line; a container without one has no `findings` at all.
  const check = await fetch(`${url}/v1/check`, { method: 'POST', headers: bearer() });
  t.equal(check.status, 200);
  const records = ((await check.json()) as { containers: Record<string, unknown>[] }).containers;
  const record = (name: string) => records.find((r) => r.name === name);
  t.same(record('web')?.findings, { 'finding-gate.scan': LINE });
  t.notOk('findings' in (record('db') ?? {}), 'no finding, no field: the record reads as before');

  // /details: the same, from the last check.
  const details = await fetch(`${url}/v1/containers/details`, { headers: bearer() });
  const detailed = ((await details.json()) as { containers: Record<string, unknown>[] }).containers;
  t.same(detailed.find((c) => c.name === 'web')?.findings, { 'finding-gate.scan': LINE });
  t.notOk('findings' in (detailed.find((c) => c.name === 'db') ?? {}));

  // Metrics: counted by key.
  const metrics = await (await fetch(`${url}/v1/metrics`, { headers: bearer() })).text();
  t.match(metrics, /tidewatch_findings_total\{key="finding-gate\.scan"\} 1/);

  // An update: the gate refuses web on its finding; the skip event carries the findings, the SSE frame does not.
  const update = await fetch(`${url}/v1/update`, { method: 'POST', headers: bearer() });
  t.equal(update.status, 200);
  t.match(await update.json(), { summary: { updated: 1, skipped: 1 } }, 'db updated, web refused');
  const skipped = events.find((e) => e.type === 'update_skipped');
  t.match(skipped?.data, { container: 'web', reason: 'finding-gate: 2 critical vulnerabilities', by: 'finding-gate' });
  t.equal(skipped?.findings?.['finding-gate.scan']?.summary, LINE, 'the event carries the finding');

  // A notification template reads it through .Findings, knowing nothing of the plugin.
  const report = events.find((e): e is TidewatchEvent & { data: EventPayloads['run_report'] } => e.type === 'run_report' && e.data.kind === 'update');
  t.ok(report, 'the update run reported');
  const outcome = runOutcome((report as { data: EventPayloads['run_report'] }).data);
  const template = '{{range .Report.Stale}}{{.Name}}{{range .Findings}} [{{.Key}}: {{.Summary}}]{{end}}\n{{end}}';
  const body = messageRenderer(compileTemplate(template), { host: 'box', titleTag: '', skipTitle: false, withReport: true })({
    outcome,
    containers: outcome.containers,
    entries: outcome.entries,
  }).body;
  t.match(body, `web [finding-gate.scan: ${LINE}]`);

  // The dashboard: the finding under the row's update, by key and line.
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 700 } });
  if (!browser) return;
  const { page } = browser;
  await page.goto(`${url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');
  await page.click('#check-all');
  await untilInPage(page, `!!document.querySelector('#containers tbody tr[data-name="web"] [data-finding="finding-gate.scan"]')`);
  const shown = page.locator('#containers tbody tr[data-name="web"] [data-finding="finding-gate.scan"]');
  t.equal(await shown.locator('.finding-key').textContent(), 'finding-gate.scan');
  t.match(await shown.textContent(), LINE);
  t.equal(await page.locator('#containers tbody tr[data-name="db"] [data-finding]').count(), 0, 'no finding, nothing shown');
});
