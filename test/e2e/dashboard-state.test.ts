// The dashboard with state (docs/dashboard.md, docs/state.md) in headless Chromium against the real
// binary, engine and registry: after a restart the last check shows on load without pressing Check now;
// an update run started elsewhere shows live; a container's name opens its timeline; Rollback asks for a
// confirmation, puts the previous image back and shows the hold, its success as a success (not the red
// error banner); the timeline names versions (digests folded) and outcomes in words; the Runs panel labels
// each run by what started it and fits a 1440 px screen; a monitor-only container has no Update.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import { inPage, launchChromium, panelFit, screenshot, untilInPage, untilText } from '../helpers/chromium.js';
import { pushNext, runningOn, scenario } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-dashboard-state-token-0123';
const EVENTS_TOKEN = 'e2e-dashboard-state-events-01';

const rowOf = (page: Page, name: string) => page.locator(`#containers tbody tr[data-name="${name}"]`);

t.test('state on load after a restart, the timeline, and a rollback with its confirmation', { timeout: 240_000 }, async (t) => {
  const s = await scenario(t, 'e2e-dash-state');
  if (!s) return;
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 } });
  if (!browser) return;
  const { page } = browser;
  const version = (v: string) => ({ labels: { 'org.opencontainers.image.version': v } });
  const app = await runningOn(s, 'app', { image: version('1.0.0') });
  const v1Id = (await s.engine.getImage(app.image.ref).inspect()).Id;
  const watcher = await runningOn(s, 'watch', { run: { labels: { 'tidewatch.monitor-only': 'true' } } });
  // A label the check refuses: its last check fails, and must stay an error after the restart.
  const broken = await runningOn(s, 'broken', { run: { labels: { 'tidewatch.tag.policy': 'weekly' } } });
  const v2 = await pushNext(s, app, version('2.0.0'));
  const dir = await mkdtemp(join(tmpdir(), 'tw-dash-state-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const args = [
    '--host', s.env.dockerHost, '--data-dir', dir, '--update-grace-period', '1s',
    '--http-api-endpoints', 'dashboard,check,update,containers,history,events,audit,rollback',
    '--http-api-token', TOKEN, '--http-api-events-token', EVENTS_TOKEN, `${s.prefix}-.*`,
  ];
  let service: RunningService = await startService(args);
  t.teardown(() => service.stop('SIGKILL'));
  t.equal((await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN })).status, 200);
  t.equal(await service.stop(), 0);
  service = await startService(args);

  await page.goto(`${service.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.fill('#events-token', EVENTS_TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#app:not([hidden])');
  // No Check now pressed: what the service remembered is shown.
  await page.waitForSelector(`#containers tbody tr.stale[data-name="${app.name}"]`);
  t.match(await rowOf(page, app.name).innerText(), /available/, 'the last check shows on load after a restart');
  t.equal(await rowOf(page, app.name).locator('[data-label="Latest"] .digest').getAttribute('title'), v2.digest);
  t.match(await page.textContent('#status'), /1 with an update/);
  t.match(await rowOf(page, broken.name).locator('[data-label="Update"]').innerText(), /error: .*"weekly" is not one of/, 'a failed last check shows as an error, not up to date');
  t.equal(await rowOf(page, watcher.name).locator('button[data-update]').count(), 0, 'monitor-only: no Update button');
  t.equal(await rowOf(page, watcher.name).locator('button[data-rollback]').count(), 0, 'nor a Rollback button');
  t.equal(await rowOf(page, app.name).locator('button[data-update]').isEnabled(), true);
  t.equal(await rowOf(page, app.name).locator('button[data-rollback]').count(), 0, 'never updated: nothing to roll back to');

  // An update run started elsewhere: the row catches up from the event stream.
  // The live feed opens after the token check: give it a moment to subscribe.
  await new Promise((r) => setTimeout(r, 1000));
  t.match((await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })).body, { summary: { updated: 1 } });
  await untilInPage(page, `!document.querySelector('#containers tbody tr[data-name="${app.name}"]').classList.contains('stale')`, 20_000);
  t.match(await rowOf(page, app.name).innerText(), /up to date/, 'up to date after the run, without a click');

  // The timeline.
  await rowOf(page, app.name).locator('[data-timeline]').click();
  await untilText(page, '#timeline', 'Update updated 1.0.0 → 2.0.0', 10_000);
  t.equal(await page.locator('#timeline li .digests[open]').count(), 0, 'digests only on demand (folded)');
  t.match(await page.textContent('#timeline-title'), app.name);

  // Rollback: asked first; confirmed, the previous image runs and the row says held.
  await rowOf(page, app.name).locator('button[data-rollback]').click();
  await page.waitForSelector('#confirm[open]');
  t.match(await page.textContent('#confirm-text'), `Roll ${app.name} back`);
  await page.click('#confirm-ok');
  await untilText(page, '#message', 'rolled back', 60_000);
  const message = page.locator('#message');
  t.match(await message.getAttribute('class'), /message-ok/, 'a rollback that worked is shown as a success');
  const background = await inPage<{ shown: string; error: string }>(page, `(() => {
    const probe = document.createElement('p');
    probe.className = 'message';
    document.body.append(probe);
    const error = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return { shown: getComputedStyle(document.querySelector('#message')).backgroundColor, error };
  })()`);
  t.not(background.shown, background.error, "not on the error banner's background");
  await untilText(page, `#containers tbody tr[data-name="${app.name}"] [data-label="Flags"]`, 'held', 10_000);
  t.equal((await s.engine.getContainer(app.name).inspect()).Image, v1Id, 'the engine runs the previous image');
  await untilText(page, '#timeline', 'Rollback rolled back 2.0.0 → 1.0.0', 10_000);
  t.notMatch(await page.locator('#timeline').innerText(), /rolled_back|sha256:/, 'no raw outcome, no digest shown unasked');

  // Runs: each named by what started it, all of the panel within a 1440 x 900 screen, nothing scrolled sideways.
  await untilText(page, '#history', 'rollback', 10_000);
  const labels = await page.locator('#history tbody td.run-kind').allInnerTexts();
  // The page may re-check after the rollback's run (a run it did not start itself): compare as a set.
  for (const label of ['rollback', 'update of all containers (API)', 'check of all containers (API)']) t.ok(labels.includes(label), `a run labelled "${label}" (${labels.join(', ')})`);
  t.notOk(labels.some((l) => /targeted/.test(l)), 'no run is called targeted by default');
  const fit = await panelFit(page, '#history', '#history th, #history td');
  t.ok(fit.panel.right <= fit.width, `the Runs panel ends within the screen (${fit.panel.right} ≤ ${fit.width})`);
  t.equal(fit.sideways, 0, 'the runs table does not scroll sideways');
  t.equal(fit.page, 0, 'nor does the page');
  t.equal(fit.outside, 0, 'every cell within the panel');
  t.equal(await rowOf(page, app.name).locator('button[data-release]').count(), 1, 'a Release button for the hold');
  const updateCell = rowOf(page, app.name).locator('[data-label="Update"]');
  t.equal((await updateCell.innerText()).trim(), 'held', 'a held row says held, not up to date');
  t.notOk(await updateCell.evaluate((el) => el.classList.contains('update-no')), 'and is not shown green');
  t.comment(`screenshot: ${await screenshot(page, 'e2e-dashboard-state')}`);
});
