// Tidewatch's own compose example (examples/compose-tidewatch-native.yml) runs with least privilege as
// docs/security.md shows it: brought up with the real docker-compose on the private engine, the Tidewatch
// container is a non-root user with the socket's group (DOCKER_GID), a read-only root filesystem with its
// /data volume and /tmp tmpfs, no capabilities, no-new-privileges; and it works that way: healthy, its
// tokens read from the Compose secrets, a check, and an update of the example's app (its db is monitor-only).
//
// What the test changes, as in watchtower-drop-in.test.ts: the private engine has no bridge, so Tidewatch
// runs on the host network without the `ports:` entry (the API on a free loopback port); the images come
// from the local registry; the app services get no network and a scope that keeps this Tidewatch to this
// stack. The example's files (secrets, the registry config) are made beside a copy of it.
import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { docker, requireEnv, waitFor } from '../helpers/env.js';
import { pushImage, removeContainers, removeImages, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/loopback-server.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, REPO_ROOT } from '../helpers/service.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';
import { composeAvailable } from '../helpers/compose.js';

const run = promisify(execFile);
const EXAMPLE = join(REPO_ROOT, 'examples/compose-tidewatch-native.yml');
const TOKEN = 'compose-native-token-0123456789';

t.test("Tidewatch's own compose example runs with least privilege, and works", { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env || !(await composeAvailable(t))) return;
  const engine = docker(env);
  const project = testPrefix('compose-native');
  const self = `${project}-tidewatch`;
  const dir = await mkdtemp(join(tmpdir(), 'tw-compose-native-'));
  const port = await freePort();

  const example = parse(await readFile(EXAMPLE, 'utf8')) as { services: Record<string, Record<string, unknown>> };
  const tidewatch = example.services['tidewatch'];
  if (!tidewatch?.['ports']) throw new Error('examples/compose-tidewatch-native.yml: the tidewatch service publishes no port any more');
  delete tidewatch['ports'];
  const file = join(dir, 'docker-compose.yml');
  await writeFile(file, stringify(example));
  // The files the example names, beside it: the secrets and a registry config uid 1000 can read.
  await writeFile(join(dir, 'tidewatch_token.txt'), TOKEN, { mode: 0o644 });
  await writeFile(join(dir, 'tidewatch_events_token.txt'), `${TOKEN}-events`, { mode: 0o644 });
  await writeFile(join(dir, 'docker-config.json'), '{}', { mode: 0o444 });

  const tidewatchRef = `${env.registry}/${project}/tidewatch:latest`;
  await dockerCli(env, ['tag', await tidewatchImage(env), tidewatchRef]);
  await dockerCli(env, ['push', '-q', tidewatchRef]);
  const push = (service: string, version: number) =>
    pushImage({ registry: env.registry, repo: `${project}/${service}`, marker: `${project} ${service} v${version}`, cmd: QUICK_STOP_CMD });
  const v1 = { app: await push('app', 1), db: await push('db', 1) };
  const scope = { 'tidewatch.scope': project };
  const override = join(dir, 'local.override.json');
  await writeFile(override, JSON.stringify({
    services: {
      tidewatch: {
        image: tidewatchRef,
        container_name: self,
        network_mode: 'host',
        volumes: [`${env.dockerSocket}:/var/run/docker.sock`],
        environment: { TIDEWATCH_SCOPE: project, TIDEWATCH_HTTP_API_HOST: '127.0.0.1', TIDEWATCH_HTTP_API_PORT: String(port) },
        labels: scope,
      },
      app: { image: v1.app.ref, network_mode: 'none', labels: scope },
      db: { image: v1.db.ref, network_mode: 'none', labels: scope },
    },
  }, null, 2));

  const compose = (args: string[]) =>
    run('docker-compose', ['--ansi', 'never', '-p', project, '-f', file, '-f', override, ...args], {
      cwd: dir,
      timeout: 300_000,
      env: { ...process.env, DOCKER_HOST: env.dockerHost, DOCKER_GID: String(statSync(env.dockerSocket).gid) },
    });
  t.teardown(async () => {
    if (!t.passing()) t.comment(await dockerCli(env, ['logs', '--tail', '60', self]).catch(() => 'no logs'));
    await compose(['down', '--remove-orphans', '--volumes']).catch(() => undefined);
    await removeContainers(engine, project);
    await removeImages(engine, project);
    await rm(dir, { recursive: true, force: true });
  });

  await compose(['up', '-d']);
  const inspect = await engine.getContainer(self).inspect();
  t.equal(inspect.Config.User, '1000:1000', 'the image user');
  t.same(inspect.HostConfig.GroupAdd, [String(statSync(env.dockerSocket).gid)], "the socket's group");
  t.equal(inspect.HostConfig.ReadonlyRootfs, true, 'read-only root filesystem');
  t.same(inspect.HostConfig.CapDrop, ['ALL'], 'no capabilities');
  t.ok(inspect.HostConfig.SecurityOpt?.some((o: string) => o.startsWith('no-new-privileges')), 'no-new-privileges');
  t.ok(Object.keys(inspect.HostConfig.Tmpfs ?? {}).includes('/tmp'), 'a tmpfs on /tmp');
  t.ok(inspect.Mounts.some((m) => m.Type === 'volume' && m.Destination === '/data'), 'a volume on /data');

  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => ((await call(`${url}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 60_000, 250);
  await waitFor(async () => ((await engine.getContainer(self).inspect()).State.Health?.Status === 'healthy' ? true : undefined), 90_000, 1000);
  t.pass('healthy');

  // Newer images for both: the app is updated (its 2-day cooldown counts from the image's creation
  // date, 2024-01-01 for the test images), the monitor-only db is left alone.
  const v2 = { app: await push('app', 2), db: await push('db', 2) };
  const check = await call(`${url}/v1/check`, { method: 'POST', token: TOKEN });
  t.equal(check.status, 200, `POST /v1/check with the token from the Compose secret: ${check.text}`);
  const found = (check.body as { containers: { name: string; update_available: boolean }[] }).containers;
  const app = found.find((c) => c.name === `${project}_app_1`);
  t.ok(app && found.some((c) => c.name === `${project}_db_1`), `both app services, through the socket: ${found.map((c) => c.name).join(', ')}`);
  t.equal(app?.update_available, true, "the app's newer image is found");
  const update = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(update.status, 200, `POST /v1/update: ${update.text}`);
  t.match(update.body, { summary: { updated: 1, failed: 0 } }, 'one update, nothing failed');
  const imageOf = async (service: string) => (await engine.getContainer(`${project}_${service}_1`).inspect()).Image;
  const idOf = async (ref: string) => (await engine.getImage(ref).inspect()).Id;
  t.equal(await imageOf('app'), await idOf(v2.app.ref), 'the app runs its new image');
  t.equal(await imageOf('db'), await idOf(v1.db.ref), 'the monitor-only db is untouched');
  t.equal(await dockerCli(env, ['exec', self, 'node', '-e', "require('fs').writeFileSync('/data/probe', 'x')"]), '', '/data is writable');
});
