// The hardened image behind a socket proxy (docs/security.md, "Tests"): the image run as
// least-privilege.test.ts runs it (uid 1000, read-only with /data and /tmp, no-new-privileges, no
// capability), but with NO Docker socket mounted: its DOCKER_HOST is a real haproxy configured as the
// docker-socket-proxy image (test/helpers/socket-proxy.ts) with exactly the switches docs/security.md gives
// for updates. It turns healthy, a check finds the pushed image, an update replaces the app, and the proxy's
// log shows every call was one docs/security.md lists for checks and updates, none refused but the Swarm probe.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { endpointTemplate } from '../../plugins/docker/engine/socket-proxy.js';
import { docker, requireEnv, waitFor } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/loopback-server.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { REPO_ROOT, call } from '../helpers/service.js';
import { haproxyInstalled, startSocketProxy } from '../helpers/socket-proxy.js';
import { dockerCli, HARDENED_USER, hardenedRunFlags, tidewatchImage } from '../helpers/tidewatch-image.js';

const TOKEN = 'least-privilege-proxy-token-0123456789';
const USER = HARDENED_USER;
const SECURITY = readFileSync(join(REPO_ROOT, 'docs/security.md'), 'utf8');

/** docs/security.md, "A ready socket-proxy configuration": the switches of the updates row. */
function updateSwitches(): string[] {
  const row = /^\| updates \(rollback, self-update included\) \| `([A-Z ]+)` \|$/m.exec(SECURITY);
  if (!row) throw new Error('docs/security.md has no "updates" row in its socket-proxy configuration table');
  return (row[1] as string).split(' ');
}

/** docs/security.md, "Engine endpoints per mode": `METHOD /template` of the check and update rows. */
function documentedCalls(): Set<string> {
  const section = SECURITY.slice(SECURITY.indexOf('### Engine endpoints per mode'));
  const rows = [...section.matchAll(/^\| (check|update) \| `([A-Z]+ \S+)` \|/gm)];
  return new Set(rows.map((m) => m[2] as string));
}

t.test('the hardened image with no socket, through a proxy with the documented update switches: healthy, a check, an update', { timeout: 900_000 }, async (t) => {
  if (!haproxyInstalled()) {
    if (process.env['CI'] === 'true') throw new Error('haproxy is not installed (bash scripts/test-env.sh up installs it): CI=true must not skip');
    t.plan(0, 'haproxy is not installed');
    return;
  }
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const image = await tidewatchImage(env);
  const switches = updateSwitches();
  t.same([...switches].sort(), ['CONTAINERS', 'EVENTS', 'IMAGES', 'INFO', 'PING', 'POST', 'VERSION'], 'the documented update switches were read');
  const proxy = await startSocketProxy(env.dockerSocket, switches);
  const prefix = testPrefix('leastpriv-proxy');
  const app = `${prefix}-app`;
  const self = `${prefix}-tidewatch`;
  const data = `${prefix}-data`;
  t.teardown(async () => {
    if (!t.passing()) t.comment(await dockerCli(env, ['logs', '--tail', '60', self]).catch(() => 'no logs'));
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
    await dockerCli(env, ['volume', 'rm', '-f', data]).catch(() => undefined);
    await proxy.stop();
  });

  const repo = `${prefix}/app`;
  const push = (n: number) => pushImage({ registry: env.registry, repo, marker: `${prefix} v${n}`, cmd: QUICK_STOP_CMD });
  const v1 = await push(1);
  await pullImage(engine, v1.ref);
  await runContainer(engine, { name: app, image: v1.ref });

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // docs/security.md's flags without the socket and its group: the proxy is the only way to the engine.
  // --network host: the proxy listens on the host's loopback. DOCKER_HOST in the environment, so the
  // health check's process (docs/image.md, "Health") reads the same engine address.
  await dockerCli(env, [
    'run', '-d', '--name', self,
    ...hardenedRunFlags(data),
    '--network', 'host', '-e', `DOCKER_HOST=${proxy.host}`,
    '--health-interval', '1s', '--health-start-period', '2s',
    image,
    '--http-api-endpoints', 'check,update,health', '--http-api-token', TOKEN,
    '--http-api-host', '127.0.0.1', '--http-api-port', String(port), app,
  ]);

  const inspect = await engine.getContainer(self).inspect();
  t.equal(inspect.Config.User, USER);
  t.equal(inspect.HostConfig.ReadonlyRootfs, true, 'read-only root filesystem');
  t.same(inspect.HostConfig.CapDrop, ['ALL']);
  t.ok(inspect.HostConfig.SecurityOpt?.includes('no-new-privileges'));
  t.same(inspect.Mounts.map((m) => m.Destination).sort(), ['/data'], 'no socket mounted: /data is the only mount');
  t.notOk(inspect.HostConfig.GroupAdd?.length, 'no extra group');
  const status = await dockerCli(env, ['exec', self, 'cat', '/proc/1/status']);
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim().split(/\s+/);
  t.same(field('Uid'), ['1000', '1000', '1000', '1000'], 'PID 1 (node) runs as uid 1000');
  t.equal(field('CapEff')?.[0], '0000000000000000', 'no effective capability');
  await t.rejects(
    dockerCli(env, ['exec', self, 'node', '-e', "require('fs').statSync('/var/run/docker.sock')"]),
    /ENOENT/,
    'there is no /var/run/docker.sock inside',
  );

  const health = async (): Promise<string> => (await engine.getContainer(self).inspect()).State.Health?.Status ?? 'none';
  await waitFor(async () => ((await health()) === 'healthy' ? true : undefined), 60_000, 500);
  t.pass('healthy: its engine answers through the proxy');

  const v2 = await push(2);
  const check = await call(`${url}/v1/check`, { method: 'POST', token: TOKEN });
  t.equal(check.status, 200, `POST /v1/check: ${check.text}`);
  t.match((check.body as { containers: unknown[] }).containers, [{ name: app, update_available: true, host: proxy.host }], 'the check finds the pushed image, on the engine behind the proxy');
  const update = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(update.body, { summary: { scanned: 1, updated: 1, failed: 0 } }, `POST /v1/update: ${update.text}`);
  const running = await engine.getContainer(app).inspect();
  t.equal(running.Image, v2.configDigest, 'the app runs the new image (its ID is the pushed config digest)');
  t.equal(running.State.Running, true);

  // The health check asks /readyz every second, which pings an engine whose last answer is more than 2 s old
  // (docs/hosts.md#start-up): with the update over, one goes through the proxy.
  await waitFor(async () => (proxy.requests().some((r) => endpointTemplate(r.path) === '/_ping') ? true : undefined), 30_000, 250);
  // What went through the proxy: only calls docs/security.md lists for checks and updates.
  const seen = proxy.requests();
  const calls = new Set(seen.map((r) => `${r.method} ${endpointTemplate(r.path)}`));
  const listed = documentedCalls();
  t.same([...calls].filter((c) => !listed.has(c) && c !== 'GET /swarm'), [], 'every Engine call is a documented check or update call');
  t.same(
    [...new Set(seen.filter((r) => r.status === 403).map((r) => `${r.method} ${endpointTemplate(r.path)}`))],
    calls.has('GET /swarm') ? ['GET /swarm'] : [],
    'nothing refused but the Swarm probe (SWARM=0)',
  );
  for (const expected of ['GET /_ping', 'GET /containers/json', 'POST /images/create', 'POST /containers/create', 'POST /containers/{id}/start', 'DELETE /containers/{id}']) {
    t.ok(calls.has(expected), `the image made ${expected} through the proxy`);
  }
});
