// The image with least privilege (docs/security.md, "Running the image with least privilege"): a
// non-root user that reaches the socket through its group (--group-add), a read-only root filesystem
// (a volume on /data and a tmpfs on /tmp excepted), no-new-privileges and every capability dropped.
// Run that way against the private engine it turns healthy, checks, updates a container, and shows
// the update run in Watchtower's series the way Homepage's widget reads them. And the image's defaults
// stay the Watchtower form: root, the socket mounted and nothing else (docs/security.md, "Why root is
// the default").
import { statSync } from 'node:fs';
import t from 'tap';
import { docker, requireEnv, waitFor, type TestEnv } from '../helpers/env.js';
import { readLikeHomepage, WATCHTOWER_SERIES } from '../helpers/homepage-widget.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/loopback-server.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call } from '../helpers/service.js';
import { dockerCli, HARDENED_USER, hardenedRunFlags, tidewatchImage } from '../helpers/tidewatch-image.js';

const TOKEN = 'least-privilege-token-0123456789';
/** The image's node user, as docs/security.md runs it. */
const USER = HARDENED_USER;

/** The flags of docs/security.md's `docker run`, with the private engine's socket and the volume `data`. */
/** The hardened flags with the Engine's socket and its group (docs/security.md). */
function leastPrivilegeFlags(env: TestEnv, data: string): string[] {
  const socketGid = String(statSync(env.dockerSocket).gid);
  return [...hardenedRunFlags(data), '--group-add', socketGid, '-v', `${env.dockerSocket}:/var/run/docker.sock`];
}

t.test('least privilege: non-root, read-only, no capabilities; healthy, a check and an update, Watchtower series', { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const image = await tidewatchImage(env);
  const prefix = testPrefix('leastpriv');
  const app = `${prefix}-app`;
  const self = `${prefix}-tidewatch`;
  const data = `${prefix}-data`;
  t.teardown(async () => {
    if (!t.passing()) t.comment(await dockerCli(env, ['logs', '--tail', '60', self]).catch(() => 'no logs'));
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
    await dockerCli(env, ['volume', 'rm', '-f', data]).catch(() => undefined);
  });

  const repo = `${prefix}/app`;
  const push = (n: number) => pushImage({ registry: env.registry, repo, marker: `${prefix} v${n}`, cmd: QUICK_STOP_CMD });
  const v1 = await push(1);
  await pullImage(engine, v1.ref);
  await runContainer(engine, { name: app, image: v1.ref });

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await dockerCli(env, [
    'run', '-d', '--name', self, ...leastPrivilegeFlags(env, data),
    '--network', 'host', '--health-interval', '1s', '--health-start-period', '2s',
    image,
    '--http-api-endpoints', 'check,update,metrics,health', '--http-api-token', TOKEN,
    '--http-api-host', '127.0.0.1', '--http-api-port', String(port), app,
  ]);

  // What the engine applied, and what the process really has.
  const inspect = await engine.getContainer(self).inspect();
  t.equal(inspect.Config.User, USER);
  t.equal(inspect.HostConfig.ReadonlyRootfs, true, 'read-only root filesystem');
  t.same(inspect.HostConfig.CapDrop, ['ALL']);
  t.ok(inspect.HostConfig.SecurityOpt?.includes('no-new-privileges'));
  const status = await dockerCli(env, ['exec', self, 'cat', '/proc/1/status']);
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim().split(/\s+/);
  t.same(field('Uid'), ['1000', '1000', '1000', '1000'], 'PID 1 (node) runs as uid 1000');
  t.ok(field('Groups')?.includes(String(statSync(env.dockerSocket).gid)), "with the socket's group");
  t.equal(field('CapEff')?.[0], '0000000000000000', 'no effective capability');
  t.equal(field('CapBnd')?.[0], '0000000000000000', 'none it could ever gain');
  t.equal(field('NoNewPrivs')?.[0], '1', 'no-new-privileges');
  // Written with node itself (every base has it), so a failure is the filesystem's answer.
  const write = (file: string) => dockerCli(env, ['exec', self, 'node', '-e', `require('fs').writeFileSync(${JSON.stringify(file)}, 'x')`]);
  await t.rejects(write('/app/probe'), /EROFS/, 'the root filesystem is read-only');
  await t.resolves(write('/data/probe'), '/data is writable by the user');
  await t.resolves(write('/tmp/probe'), '/tmp (a tmpfs) too');

  const health = async (): Promise<string> => (await engine.getContainer(self).inspect()).State.Health?.Status ?? 'none';
  await waitFor(async () => ((await health()) === 'healthy' ? true : undefined), 60_000, 500);
  t.pass('healthy: the heartbeat is written to the tmpfs and the engine answers');

  const v2 = await push(2);
  const check = await call(`${url}/v1/check`, { method: 'POST', token: TOKEN });
  t.equal(check.status, 200, `POST /v1/check: ${check.text}`);
  t.match((check.body as { containers: unknown[] }).containers, [{ name: app, update_available: true }]);
  const update = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(update.body, { summary: { scanned: 1, updated: 1, failed: 0 } }, `POST /v1/update: ${update.text}`);
  const running = await engine.getContainer(app).inspect();
  t.equal(running.Image, (await engine.getImage(v2.ref).inspect()).Id, 'the app runs the new image');
  t.equal(running.State.Running, true);

  // Homepage's widget reads the update run that just happened.
  const metrics = await call(`${url}/v1/metrics`, { token: TOKEN });
  t.equal(metrics.status, 200);
  const widget = readLikeHomepage(metrics.text);
  t.same(
    Object.fromEntries(WATCHTOWER_SERIES.map((name) => [name, widget.number(name)])),
    {
      watchtower_containers_scanned: 1,
      watchtower_containers_updated: 1,
      watchtower_containers_failed: 0,
      watchtower_containers_restarted: 0,
      watchtower_scans_total: 1,
      watchtower_scans_skipped: 0,
    },
    'every series, with the update run that replaced the app',
  );
});

t.test("the defaults stay Watchtower's: root, the socket mounted, nothing else", { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const image = await tidewatchImage(env);
  const config = (JSON.parse(await dockerCli(env, ['image', 'inspect', image])) as { Config: { User: string; Env: string[] } }[])[0]?.Config;
  t.equal(config?.User ?? '', '', 'no USER: root, which reaches a socket mounted without --group-add');
  t.ok(config?.Env.includes('TIDEWATCH_DATA_DIR=/data'));
  const socket = ['-v', `${env.dockerSocket}:/var/run/docker.sock`];
  await t.resolves(dockerCli(env, ['run', '--rm', ...socket, image, '--run-once', 'no-such-container']), 'the Watchtower form completes a run');

  // The hardened form without --group-add: refused by the socket, and the run says so.
  const prefix = testPrefix('leastpriv-nogroup');
  const data = `${prefix}-data`;
  t.teardown(() => dockerCli(env, ['volume', 'rm', '-f', data]).catch(() => undefined));
  const flags = leastPrivilegeFlags(env, data);
  const withoutGroup = flags.filter((f, i) => f !== '--group-add' && flags[i - 1] !== '--group-add');
  const refused = await dockerCli(env, ['run', '--rm', ...withoutGroup, image, '--run-once', 'no-such-container']).then(
    () => undefined,
    (err: { stdout?: string; stderr?: string }) => `${err.stdout ?? ''}${err.stderr ?? ''}`,
  );
  t.match(refused, /EACCES \/var\/run\/docker\.sock/, 'without the socket group the run fails on the socket');
});
