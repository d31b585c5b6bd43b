// The dashboard's host column and filter, and its Rollouts panel (docs/dashboard.md, docs/rollouts.md), in
// headless Chromium against the real binary, two real engines (stage 1 over the socket, stage 2 over TLS) and
// the registry: a candidate that fails its proof on the stage-1 host shows as a halted rollout naming the host;
// Release (after its confirmation) lets stage 2 go on, and the panel shows the rollout done.
import t from 'tap';
import { launchChromium, screenshot, untilText } from '../helpers/chromium.js';
import { docker, requireTwoEngines, secondDocker, waitFor } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-dashboard-rollouts-token-0123';
const CMD = ['/bin/sh', '-c', "trap 'exit 0' TERM; if [ -n \"$FAIL_V2\" ] && [ -e /v2 ]; then exit 3; fi; sleep 3600 & wait"];

t.test('host column and filter; a halted rollout shows why and is released from the panel', { timeout: 240_000 }, async (t) => {
  const env = await requireTwoEngines(t);
  if (!env) return;
  const browser = await launchChromium(t, { viewport: { width: 1440, height: 900 } });
  if (!browser) return;
  const { page } = browser;
  const prefix = testPrefix('e2e-dash-rollouts');
  const engines = [docker(env), secondDocker(env)];
  t.teardown(async () => {
    for (const engine of engines) {
      await removeContainers(engine, prefix);
      await removeImages(engine, prefix);
    }
  });
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: CMD });
  for (const [index, engine] of engines.entries()) {
    await pullImage(engine, v1.ref);
    await runContainer(engine, { name: `${prefix}-app`, image: v1.ref, cmd: CMD, env: index === 0 ? ['FAIL_V2=1'] : [] });
  }
  // Only on the second engine: the filter must tell the engines apart.
  await runContainer(engines[1] as (typeof engines)[number], { name: `${prefix}-solo`, image: v1.ref, cmd: CMD });
  const v2 = await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: CMD, files: { v2: 'yes' } });

  const service = await startService([
    '--host', `${env.dockerHost}?stage=1`,
    '--host', `${env.secondDockerHost}?tlsverify=1&cert-path=${env.secondCertPath}&stage=2`,
    '--update-grace-period', '2s', '--rollout-soak', '0s',
    '--http-api-endpoints', 'dashboard,check,update,containers,rollouts', '--http-api-token', TOKEN, `${prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  t.match((await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN })).body, { summary: { failed: 1 } }, 'stage 1 failed its proof');

  await page.goto(`${service.url}/ui/`);
  await page.fill('#token', TOKEN);
  await page.click('#login-form button[type=submit]');
  await page.waitForSelector('#containers tbody tr');
  const hostCells = async () => (await page.locator('#containers tbody td.host').allTextContents()).sort();
  t.same(await hostCells(), [env.dockerHost, env.secondDockerHost, env.secondDockerHost].sort(), 'a host column names each container\'s engine');
  t.same(
    (await page.locator('#host-filter option').allTextContents()).sort(),
    ['all', env.dockerHost, env.secondDockerHost].sort(),
    'the host filter offers every engine',
  );
  await page.selectOption('#host-filter', env.dockerHost);
  t.same(await hostCells(), [env.dockerHost], 'the filter keeps that engine\'s containers');
  await page.selectOption('#host-filter', env.secondDockerHost);
  t.same(
    (await page.locator('#containers tbody td.name').allTextContents()).sort(),
    [`${prefix}-app`, `${prefix}-solo`],
    'and only those',
  );
  await page.selectOption('#host-filter', '');

  await page.waitForSelector('#rollouts-panel:not([hidden])');
  const row = '#rollouts li[data-rollout]';
  await page.waitForSelector(`${row}[data-state="halted"]`);
  t.match(await page.textContent(row), new RegExp(`rollout halted: ${env.dockerHost.replace(/[/.]/g, '\\$&')} failed`), 'the halted rollout says which host failed');
  t.same(
    await page.locator(`${row} li[data-stage]`).evaluateAll((items) => items.map((i) => [i.getAttribute('data-stage'), i.getAttribute('data-stage-state')])),
    [['1', 'halted'], ['2', 'waiting']],
    'each stage with its state',
  );
  t.comment(`screenshot: ${await screenshot(page, 'dashboard-rollout-halted', { fullPage: true })}`);

  await page.click(`${row} button[data-release-rollout]`);
  await page.waitForSelector('dialog#confirm[open]');
  t.match(await page.textContent('#confirm-text'), /Release the halted rollout of .*\? Its later stages are then updated\./);
  await page.click('#confirm-ok');
  await untilText(page, '#message', 'released');
  await waitFor(async () => {
    const info = await (engines[1] as (typeof engines)[number]).getContainer(`${prefix}-app`).inspect();
    return info.Image === v2.configDigest && info.State.Running ? true : undefined;
  }, 60_000, 500);
  // The panel follows (without the live feed here: a reload shows it).
  await waitFor(async () => {
    await page.reload();
    const state = await page.locator(row).first().getAttribute('data-state', { timeout: 10_000 }).catch(() => null);
    return state === 'done' ? true : undefined;
  }, 30_000, 1_000);
  t.pass('released, the rollout is done');
});
