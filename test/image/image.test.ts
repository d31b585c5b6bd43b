// The distribution image (docs/image.md), built from the top-level Dockerfile and run against the
// private engine with the socket mounted as README.md tells users: what ships in it, its size, its
// labels; then, through the running image, a check, an update, a rollback of an image that cannot start,
// the health status turning healthy, and `docker stop` in the middle of a replacement losing nothing.
import { statSync } from 'node:fs';
import t from 'tap';
import { docker, requireEnv, waitFor, type TestEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { freePort } from '../helpers/loopback-server.js';
import { IMAGE_NODE_FLAGS, call } from '../helpers/service.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';

const TOKEN = 'image-test-token-0123456789';
const NODE_MODULES_BUDGET_MB = 40;

/** Starts the image as a user would (socket mounted), on the host network to reach the loopback registry. */
async function runTidewatch(env: TestEnv, image: string, name: string, args: string[]): Promise<void> {
  await dockerCli(env, [
    'run', '-d', '--name', name,
    '-v', `${env.dockerSocket}:/var/run/docker.sock`,
    '--network', 'host',
    '--health-interval', '1s', '--health-start-period', '2s',
    image, ...args,
  ]);
}

t.test('the image: only what runs, under budget, labelled', { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const image = await tidewatchImage(env);
  const inspect = JSON.parse(await dockerCli(env, ['image', 'inspect', image]))[0] as {
    Size: number;
    Config: { Labels: Record<string, string>; ExposedPorts: Record<string, unknown>; Healthcheck: { Test: string[] }; Entrypoint: string[]; Env: string[] };
  };
  const labels = inspect.Config.Labels;
  t.equal(labels['tidewatch'], 'true', 'the own-container marker');
  t.equal(labels['org.opencontainers.image.revision'], 'test', 'revision from the build argument');
  t.match(labels['org.opencontainers.image.version'], /^\d+\.\d+\.\d+/);
  t.match(labels['org.opencontainers.image.source'], /^https:\/\//);
  t.ok('8080/tcp' in inspect.Config.ExposedPorts, 'EXPOSE 8080');
  t.same(inspect.Config.Healthcheck.Test, ['CMD', 'node', '/app/bin/tidewatch.js', '--health-check']);
  t.same(inspect.Config.Entrypoint, ['node', ...IMAGE_NODE_FLAGS, '/app/bin/tidewatch.js'], 'the entry point passes the flags the tests run the binary with');

  const inImage = (script: string): Promise<string> => dockerCli(env, ['run', '--rm', '--entrypoint', 'sh', image, '-c', script]);
  const mb = await inImage('du -sm /app/node_modules | cut -f1');
  t.comment(`image ${(inspect.Size / 1e6).toFixed(0)} MB, node_modules ${mb} MB`);
  t.ok(Number(mb) < NODE_MODULES_BUDGET_MB, `node_modules ${mb} MB < ${NODE_MODULES_BUDGET_MB} MB`);
  t.equal(await inImage('ls /app | tr "\\n" " "'), 'bin dist node_modules package.json', 'only the runtime files');
  t.equal(await inImage('find /app -path /app/node_modules -prune -o -name "*.ts" ! -name "*.d.ts" -print'), '', 'no TypeScript sources');
  const devDeps = 'typescript tap playwright-core @tapjs/typescript'.split(' ').map((p) => `/app/node_modules/${p}/package.json`);
  t.equal(await inImage(`ls ${devDeps.join(' ')} 2>/dev/null || true`), '', 'no dev dependencies');
  t.match(await inImage('node --version'), /^v24\./, 'the image runs Node 24 (docs/node.md)');
  const version = await dockerCli(env, ['run', '--rm', image, '--version']);
  t.match(version, /^tidewatch \d+\.\d+\.\d+/);

  // Not root: an ordinary user reaches the socket through its group, and only so.
  const gid = String(statSync(env.dockerSocket).gid);
  const asUser = (extra: string[]) =>
    dockerCli(env, ['run', '--rm', '--user', '1000', ...extra, '-v', `${env.dockerSocket}:/var/run/docker.sock`, image, '--run-once', 'no-such-container']);
  await t.resolves(asUser(['--group-add', gid]), '--user 1000 with the socket group: a run completes');
  await t.rejects(asUser([]), '--user 1000 without it: the engine is refused, the run fails');
});

t.test('through the image: healthy, check, update, rollback, docker stop mid-update', { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const image = await tidewatchImage(env);
  const prefix = testPrefix('image');
  const app = `${prefix}-app`;
  const self = `${prefix}-tidewatch`;
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });
  const repo = `${prefix}/app`;
  const push = (n: number, extra: Parameters<typeof pushImage>[0] extends infer S ? Partial<S> : never = {}) =>
    pushImage({ registry: env.registry, repo, marker: `${prefix} v${n}`, cmd: QUICK_STOP_CMD, ...extra });
  const v1 = await push(1);
  await pullImage(engine, v1.ref);
  await runContainer(engine, { name: app, image: v1.ref });
  const imageOf = async (): Promise<string> => (await engine.getContainer(app).inspect()).Image;
  const localId = async (ref: string): Promise<string> => (await engine.getImage(ref).inspect()).Id;

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await runTidewatch(env, image, self, [
    '--http-api-endpoints', 'check,update,health', '--http-api-token', TOKEN,
    '--http-api-host', '127.0.0.1', '--http-api-port', String(port), app,
  ]);
  t.teardown(async () => {
    if (t.passing()) return;
    t.comment(await dockerCli(env, ['logs', '--tail', '60', self]).catch(() => 'no logs'));
  });

  const health = async (): Promise<string> => (await engine.getContainer(self).inspect()).State.Health?.Status ?? 'none';
  await waitFor(async () => ((await health()) === 'healthy' ? true : undefined), 60_000, 500);
  t.pass('the health status turned healthy');

  // A check finds the pushed image; an update replaces the container with it.
  const v2 = await push(2);
  const check = await call(`${url}/v1/check`, { method: 'POST', token: TOKEN });
  t.equal(check.status, 200);
  t.match((check.body as { containers: { name: string; update_available: boolean }[] }).containers, [{ name: app, update_available: true }]);
  const update = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(update.body, { summary: { updated: 1, failed: 0 } });
  const v2Id = await imageOf();
  t.equal(v2Id, await localId(v2.ref), 'the app runs the new image');

  // An image that cannot start: rolled back, the app still runs the previous one.
  await push(3, { cmd: ['/bin/sh', '-c', 'exit 3'] });
  const failed = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(failed.body, { summary: { updated: 0, failed: 1 } });
  t.equal(await imageOf(), v2Id, 'rolled back to the running image');
  t.equal((await engine.getContainer(app).inspect()).State.Running, true);

  // docker stop while a replacement is proving itself (a health check that takes seconds to pass).
  const slow = await push(4, { healthcheck: { Test: ['CMD', '/bin/true'], Interval: 4_000_000_000, StartPeriod: 20_000_000_000 } });
  const started = await call(`${url}/v1/update?async=true`, { method: 'POST', token: TOKEN });
  t.equal(started.status, 202);
  const names = async (): Promise<string[]> =>
    (await engine.listContainers({ all: true })).flatMap((c) => c.Names).filter((n) => n.includes(`${prefix}-app`));
  await waitFor(async () => ((await names()).some((n) => n.includes('--tidewatch-old-')) ? true : undefined), 60_000, 100);
  const stopAt = Date.now();
  await dockerCli(env, ['stop', '-t', '60', self]);
  const stopSeconds = (Date.now() - stopAt) / 1000;
  const state = (await engine.getContainer(self).inspect()).State;
  t.equal(state.ExitCode, 0, `Tidewatch left on its own after SIGTERM (${stopSeconds.toFixed(1)} s), not killed`);
  t.same(await names(), [`/${app}`], 'exactly the app container is left, under its name');
  const after = await engine.getContainer(app).inspect();
  t.equal(after.State.Running, true, 'and it runs');
  t.ok([v2Id, await localId(slow.ref)].includes(after.Image), 'on the old or the new image');
});
