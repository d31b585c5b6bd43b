// docs/policies.md where people decide: the dashboard's "Waiting for you" in headless Chromium (approve with its
// confirmation, reject, the next window on a row), Home Assistant's Install approving over the real mosquitto,
// and the one notification of a new pending approval with its dashboard link (.ApprovalURL under --public-url).
import t from 'tap';
import { waitFor } from '../helpers/env.js';
import { launchChromium, screenshot, untilInPage } from '../helpers/chromium.js';
import { CaptureServer } from '../helpers/capture-server.js';
import { requireBroker, subscribe } from '../helpers/mqtt.js';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-policies-people-token-012';

interface Approval {
  id: string;
  container: string;
  state: string;
  decided_by?: string;
  actor?: { kind: string; name: string };
}

async function approvalsOf(url: string): Promise<Approval[]> {
  return ((await call(`${url}/v1/approvals`, { token: TOKEN })).body as { approvals: Approval[] }).approvals;
}

/** `read()` until `ok` says yes (test/helpers/env.ts waitFor); `what` names it in the failure. */
const until = <T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 30_000): Promise<T> =>
  waitFor(async () => { const value = await read(); return ok(value) ? { value } : undefined; }, timeoutMs, 250).then((r) => r.value, (err: Error) => { throw new Error(`${what}: ${err.message}`); });

t.test('the dashboard: waiting for you, approve with a confirmation, reject, next window on the row', { timeout: 240_000 }, async (t) => {
  const s = await scenario(t, 'e2e-dash-approvals');
  if (!s) return;
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 } });
  if (!browser) return;
  const { page } = browser;
  const yes = await runningOn(s, 'yes');
  const no = await runningOn(s, 'no');
  const later = await runningOn(s, 'later', { run: { labels: { 'tidewatch.approval': 'none', 'tidewatch.update-window': '0 0 1 1 *;1m;UTC' } } });
  for (const r of [yes, no, later]) await pushNext(s, r);
  const hook = await new CaptureServer().start();
  t.teardown(() => hook.close());
  const service = await startService([
    '--host', s.env.dockerHost, '--update-grace-period', '1s', '--approval', 'all', '--public-url', 'https://tidewatch.example/base/',
    '--http-api-endpoints', 'dashboard,check,update,containers,approvals', '--http-api-token', TOKEN,
    '--notification-url', `generic+http://${hook.host}/hook`, `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  t.match((await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })).body, { summary: { updated: 0, skipped: 3 } });
  await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });

  // One message per new pending approval, with the dashboard row's link (beside the run's own report).
  const asking = () => hook.requests.map((r) => r.body).filter((b) => b.includes('waits for your approval')).sort();
  await until('two approval messages', async () => asking().length, (n) => n >= 2, 15_000);
  const bodies = asking();
  t.equal(bodies.length, 2, 'one per pending approval; none for the window\'s deferral');
  t.match(bodies[0], new RegExp(`${s.prefix}-no: the update to sha256:[0-9a-f]{12} \\(.*\\) waits for your approval: https://tidewatch.example/base/ui/#container=${s.prefix}-no`));
  t.match(bodies[1], new RegExp(`${s.prefix}-yes: .* waits for your approval: https://tidewatch.example/base/ui/#container=${s.prefix}-yes`));

  await page.goto(`${service.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#approvals-panel:not([hidden])');
  t.equal(await page.locator('#approvals li').count(), 2, 'two waiting');
  t.match(await page.locator(`#approvals li[data-approval-row="${yes.name}"]`).innerText(), /digest [0-9a-f]{12}.*Approve.*Reject.*Defer/s);
  t.match(await page.locator(`#containers tbody tr[data-name="${later.name}"] [data-label="Flags"]`).innerText(), /next window/, 'the row says when its window opens');
  t.match(await page.locator(`#containers tbody tr[data-name="${yes.name}"] [data-label="Flags"]`).innerText(), /approval pending/);

  await page.click(`#approvals li[data-approval-row="${yes.name}"] button[data-decide="approve"]`);
  await page.waitForSelector('dialog#confirm[open]');
  t.match(await page.textContent('#confirm-text'), new RegExp(`Approve the update of ${yes.name}\\?`), 'asks first');
  await page.click('#confirm-ok');
  await until('yes updated', () => s.engine.getContainer(yes.name).inspect().catch(() => undefined), (i) => i !== undefined && i.Image !== yes.image.configDigest && i.State.Running, 60_000);
  const applied = await until('applied', () => approvalsOf(service.url), (list) => list.some((a) => a.container === yes.name && a.state === 'applied'));
  t.match(applied.find((a) => a.container === yes.name), { state: 'applied', decided_by: 'dashboard', actor: { kind: 'token', name: 'main' } }, 'the dashboard\'s decision names whose token made it');

  await page.click(`#approvals li[data-approval-row="${no.name}"] button[data-decide="reject"]`);
  await page.waitForSelector('dialog#confirm[open]');
  await page.click('#confirm-ok');
  await untilInPage(page, `document.getElementById('approvals-panel').hidden === true`);
  t.match((await approvalsOf(service.url)).find((a) => a.container === no.name), { state: 'rejected', decided_by: 'dashboard', actor: { kind: 'token', name: 'main' } });
  t.equal((await s.engine.getContainer(no.name).inspect()).Image, no.image.configDigest, 'rejected: not updated');
  await screenshot(page, 'policies-approvals');
});

t.test('Home Assistant\'s Install approves the pending update over the real broker', async (t) => {
  const s = await scenario(t, 'e2e-ha-approve');
  if (!s) return;
  const env = await requireBroker(t);
  if (!env) return;
  const node = s.prefix;
  const prefix = `tw-test/${node}`;
  const app = await runningOn(s, 'app');
  await pushNext(s, app);
  const sub = await subscribe(t, env.mqtt, [`${prefix}/#`]);
  const service = await startService(
    ['--host', env.dockerHost, '--update-grace-period', '1s', '--approval', 'all', '--http-api-endpoints', 'update,approvals', '--http-api-token', TOKEN,
      '--mqtt-topic-prefix', prefix, '--mqtt-discovery-prefix', `ha-test/${node}`, '--mqtt-client-id', node, app.name],
    { TIDEWATCH_MQTT_URL: `mqtt://${env.authUser}:${env.authPassword}@${env.mqtt}` },
  );
  t.teardown(() => service.stop('SIGKILL'));
  t.match((await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })).body, { summary: { updated: 0, skipped: 1 } });
  t.match(await approvalsOf(service.url), [{ container: app.name, state: 'pending' }]);
  await sub.client.publishAsync(`${prefix}/${app.name}/command`, 'install', { qos: 1 });
  await until('app updated', () => s.engine.getContainer(app.name).inspect().catch(() => undefined), (i) => i !== undefined && i.Image !== app.image.configDigest && i.State.Running, 60_000);
  t.match(await until('applied', () => approvalsOf(service.url), (list) => list[0]?.state === 'applied'), [{ state: 'applied', decided_by: 'mqtt', actor: { kind: 'mqtt', name: 'mqtt' } }]);
});
