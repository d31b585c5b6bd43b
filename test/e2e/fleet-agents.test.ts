// The fleet's agents end to end (docs/fleet.md, issue 47): real `tidewatch agent` processes of the built
// binary, each on its own private engine of the test environment (Docker 26.1 and Docker 28.5), dial a real
// controller watching the main engine. One check asks the registry once for the image of containers on all
// three; one update replaces them all through the tunnels; a rollback by host= puts one back; an agent killed
// is offline (its containers' records say so, runs skip them); a controller restarted on the same port gets
// its agents back; a revoked agent is cut off at once and its containers leave the records.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import t from 'tap';
import { enrolToken, listAgents, startAgent, waitForAgent } from '../helpers/agents.js';
import { logMark, requireDocker26, requireDocker28, waitFor } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/ports.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-fleet-agents-token-0123456789';

interface CheckRecord {
  name: string;
  host?: string;
  update_available: boolean;
  error?: string;
}

async function check(service: RunningService): Promise<CheckRecord[]> {
  const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
  if (res.status !== 200) throw new Error(`check answered ${res.status}: ${res.text}`);
  return (res.body as { containers: CheckRecord[] }).containers;
}

const rows = (records: readonly CheckRecord[]) =>
  records.map((r) => [r.host, r.update_available, r.error]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

t.test('agents: enrolment, one fleet check, update and rollback through the tunnel, offline, controller restart, revoke', async (t) => {
  const with26 = await requireDocker26(t);
  if (!with26) return;
  const with28 = await requireDocker28(t, 'classic');
  if (!with28) return;
  const env = with26;
  const main = new Docker({ socketPath: env.dockerSocket });
  const d26 = new Docker({ socketPath: env.docker26Socket });
  const d28 = new Docker({ socketPath: with28.engine.socket });
  const prefix = testPrefix('e2e-agents');
  t.teardown(async () => {
    for (const engine of [main, d26, d28]) {
      await removeContainers(engine, prefix);
      await removeImages(engine, prefix);
    }
  });
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  for (const engine of [main, d26, d28]) {
    await pullImage(engine, v1.ref);
    await runContainer(engine, { name: `${prefix}-web`, image: v1.ref, cmd: QUICK_STOP_CMD });
  }
  const v2 = await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD });

  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'tw-controller-'));
  const controllerArgs = [
    '--host', env.dockerHost,
    '--http-api-port', String(port),
    '--http-api-endpoints', 'update,check,containers,rollback,agents',
    '--http-api-token', TOKEN,
    '--data-dir', dataDir,
    '--update-grace-period', '0',
    '--stop-timeout', '5s',
    `${prefix}-.*`,
  ];
  let controller = await startService(controllerArgs);
  t.teardown(() => controller.stop('SIGKILL'));
  const controllerUrl = `ws://127.0.0.1:${port}`;

  // Enrolment: a one-time token each, an Ed25519 key made in the agent's data directory (mode 0600).
  const a26 = startAgent({ controller: controllerUrl, name: 'edge26', host: env.docker26Host as string, token: await enrolToken(controller.url, TOKEN, 'edge26') });
  const a28 = startAgent({ controller: controllerUrl, name: 'edge28', host: with28.engine.host, token: await enrolToken(controller.url, TOKEN) });
  t.teardown(() => a26.stop('SIGKILL'));
  t.teardown(() => a28.stop('SIGKILL'));
  for (const name of ['edge26', 'edge28']) await waitForAgent(controller.url, TOKEN, name, 'online');
  const { statSync } = await import('node:fs');
  t.equal(statSync(join(a26.dataDir, 'agent-key.pem')).mode & 0o777, 0o600, 'the agent key is readable by its owner only');
  const listed = await waitFor(async () => {
    const agents = await listAgents(controller.url, TOKEN);
    return agents.every((a) => a.engine_version) ? agents : undefined;
  });
  t.match(listed.find((a) => a.name === 'edge26'), { host: 'agent://edge26', state: 'online', stage: 1, version: /\d/, engine_version: /^26\./ }, 'GET /v1/agents: online, stage, versions');

  // One check for the fleet: each image asked of its registry once, whatever the number of hosts.
  const mark = await logMark(env.registryLog);
  const records = await check(controller);
  t.same(
    rows(records),
    [['agent://edge26', true, undefined], ['agent://edge28', true, undefined], [env.dockerHost, true, undefined]],
    'one record per host, the agents named agent://NAME',
  );
  const manifestReads = await waitFor(async () => {
    const lines = (await mark.read()).filter((l) => l.includes(`/v2/${repo}/manifests/latest `));
    return lines.length > 0 ? lines : undefined;
  });
  await new Promise((r) => setTimeout(r, 300));
  t.equal(manifestReads.length, 1, 'one registry request for the image of three containers on three hosts');

  // Update through the tunnels: the agents' engines pull (credentials per request) and replace.
  const updated = await call(`${controller.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(updated.status, 200, updated.text);
  t.match(updated.body, { summary: { scanned: 3, updated: 3, failed: 0 } }, 'three hosts updated in one run');
  for (const [engine, label] of [[d26, 'Docker 26 agent'], [d28, 'Docker 28 agent'], [main, 'controller engine']] as const) {
    const info = await engine.getContainer(`${prefix}-web`).inspect();
    t.equal(info.Image, v2.configDigest, `${label}: web runs v2`);
    t.ok(info.State.Running, `${label}: web is running`);
  }

  // Rollback through an agent, by host=.
  const rolled = await call(`${controller.url}/v1/rollback?container=${prefix}-web&host=${encodeURIComponent('agent://edge26')}`, { method: 'POST', token: TOKEN });
  t.equal(rolled.status, 200, rolled.text);
  t.equal((await d26.getContainer(`${prefix}-web`).inspect()).Image, v1.configDigest, 'rolled back on the agent\'s engine');
  t.equal((await d28.getContainer(`${prefix}-web`).inspect()).Image, v2.configDigest, 'the other agent\'s container is untouched');

  // Offline is visible: its records carry the error, never up to date; runs skip them.
  await a28.stop('SIGKILL');
  await waitForAgent(controller.url, TOKEN, 'edge28', 'offline');
  const offline = (await check(controller)).find((r) => r.host === 'agent://edge28');
  t.match(offline, { update_available: false, error: /^host agent:\/\/edge28 offline since \d{4}-/ }, 'the offline agent\'s container is reported with the error');
  const skipped = await call(`${controller.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(skipped.status, 200, skipped.text);
  t.match(skipped.body, { summary: { failed: 0 } }, 'an offline host fails nothing');
  t.ok((skipped.body as { summary: { skipped: number } }).summary.skipped >= 1, `the offline host's container is skipped: ${skipped.text}`);
  t.match(skipped.text, /host offline/, 'with reason host offline');

  // A controller restart on the same port: the agent dials again (backoff) and is back well within 60 s.
  await controller.stop('SIGTERM');
  const restartedAt = Date.now();
  controller = await startService(controllerArgs);
  await waitForAgent(controller.url, TOKEN, 'edge26', 'online', 60_000);
  t.ok(Date.now() - restartedAt < 60_000, `edge26 back after ${Date.now() - restartedAt} ms`);
  const afterRestart = await listAgents(controller.url, TOKEN);
  t.match(afterRestart.find((a) => a.name === 'edge28'), { state: 'offline', last_seen: /\d{4}-/ }, 'the killed agent stays enrolled, offline');
  t.notOk(a26.logs.some((l) => l['enrol_token'] !== undefined), 'no log line carries an enrol token');

  // Revocation: the tunnel closes at once, the key is refused from then on, its containers leave the runs.
  const revoked = await call(`${controller.url}/v1/agents/edge26`, { method: 'DELETE', token: TOKEN });
  t.equal(revoked.status, 200, revoked.text);
  await waitFor(() => a26.logs.some((l) => l['msg'] === 'this agent was revoked by the controller') || undefined, 5_000);
  t.pass('the agent was told at once');
  await waitFor(() => a26.logs.some((l) => l['msg'] === 'the controller refused this agent') || undefined, 10_000);
  t.pass('its next connection is refused');
  const afterRevoke = await check(controller);
  t.notOk(afterRevoke.some((r) => r.host === 'agent://edge26'), 'a revoked agent\'s containers are no longer checked');
});

t.test('agents: a controller killed in the middle of an update through an agent repairs it when the agent is back', async (t) => {
  const with26 = await requireDocker26(t);
  if (!with26) return;
  const env = with26;
  const d26 = new Docker({ socketPath: env.docker26Socket });
  const prefix = testPrefix('e2e-agents-kill');
  t.teardown(async () => {
    await removeContainers(d26, prefix);
    await removeImages(d26, prefix);
  });
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  await pullImage(d26, v1.ref);
  await runContainer(d26, { name: `${prefix}-web`, image: v1.ref, cmd: QUICK_STOP_CMD });
  // A slow-starting healthy image keeps the replacement in its proof long enough to kill the controller there.
  await pushImage({
    registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD,
    healthcheck: { Test: ['CMD', '/bin/true'], Interval: 500_000_000, StartPeriod: 30 * 1_000_000_000 },
  });
  const port = await freePort();
  const args = [
    '--host', env.dockerHost, '--http-api-port', String(port),
    '--http-api-endpoints', 'update,check,agents', '--http-api-token', TOKEN,
    '--data-dir', mkdtempSync(join(tmpdir(), 'tw-controller-kill-')),
    '--update-grace-period', '1m', '--stop-timeout', '2s', `${prefix}-.*`,
  ];
  const first = await startService(args);
  t.teardown(() => first.stop('SIGKILL'));
  const agent = startAgent({ controller: `ws://127.0.0.1:${port}`, name: 'kill26', host: env.docker26Host as string, token: await enrolToken(first.url, TOKEN) });
  t.teardown(() => agent.stop('SIGKILL'));
  await waitForAgent(first.url, TOKEN, 'kill26', 'online');

  const leftovers = async () =>
    (await d26.listContainers({ all: true })).flatMap((c) => c.Names).filter((n) => n.includes(prefix) && n.includes('--tidewatch-'));
  void call(`${first.url}/v1/update?async=true`, { method: 'POST', token: TOKEN }).catch(() => undefined);
  await waitFor(async () => ((await leftovers()).some((n) => n.includes(`${prefix}-web--tidewatch-old-`)) ? true : undefined), 30_000);
  await first.stop('SIGKILL');
  t.ok((await leftovers()).length > 0, 'the controller died with the old container moved aside on the agent\'s engine');

  const second = await startService(args);
  t.teardown(() => second.stop('SIGKILL'));
  await waitForAgent(second.url, TOKEN, 'kill26', 'online', 60_000);
  await waitFor(async () => ((await leftovers()).length === 0 ? true : undefined), 30_000);
  const web = await d26.getContainer(`${prefix}-web`).inspect();
  t.equal(web.State.Status, 'running', 'web is running under its own name after the repair');
  t.same(await leftovers(), [], 'nothing staged or moved aside is left on the agent\'s engine');
});

t.test("agents: a Tidewatch container on an agent's host is checked but never replaced through the tunnel", async (t) => {
  const with26 = await requireDocker26(t);
  if (!with26) return;
  const env = with26;
  const d26 = new Docker({ socketPath: env.docker26Socket });
  const prefix = testPrefix('e2e-agents-self');
  t.teardown(async () => {
    await removeContainers(d26, prefix);
    await removeImages(d26, prefix);
  });
  const repo = `${prefix}/agent`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  await pullImage(d26, v1.ref);
  // Marked as the image marks Tidewatch's own container: an agent running from the image looks like this.
  await runContainer(d26, { name: `${prefix}-agent`, image: v1.ref, cmd: QUICK_STOP_CMD, labels: { tidewatch: 'true' } });
  await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD });
  const port = await freePort();
  const controller = await startService([
    '--host', env.dockerHost, '--http-api-port', String(port), '--http-api-endpoints', 'update,agents', '--http-api-token', TOKEN,
    '--update-grace-period', '0', `${prefix}-.*`,
  ]);
  t.teardown(() => controller.stop('SIGKILL'));
  const agent = startAgent({ controller: `ws://127.0.0.1:${port}`, name: 'self26', host: env.docker26Host as string, token: await enrolToken(controller.url, TOKEN) });
  t.teardown(() => agent.stop('SIGKILL'));
  await waitForAgent(controller.url, TOKEN, 'self26', 'online');
  const before = await d26.getContainer(`${prefix}-agent`).inspect();
  const res = await call(`${controller.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { summary: { updated: 0, failed: 0, skipped: 1 } }, res.text);
  const history = await call(`${controller.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(history.body, { summary: { updated: 0, skipped: 1 } }, 'and again on the next run');
  const after = await d26.getContainer(`${prefix}-agent`).inspect();
  t.equal(after.Id, before.Id, 'the same container, never stopped or replaced');
  t.ok(after.State.Running);
});
