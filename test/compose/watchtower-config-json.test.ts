// A Watchtower user's private registry (docs/private-registries.md): their compose file mounts
// `~/.docker/config.json` at `/config.json` and sets no DOCKER_CONFIG, because Watchtower and its fork read
// `/config.json` by default. With only the image changed to Tidewatch's, the credentials must still be used:
// the digest check against the registry with authentication (htpasswd, Basic) and the engine's pull of the
// new image. Without them the registry answers 401 and nothing is updated, so this fails if /config.json is
// not read.
//
// What cannot run here as a user writes it: the engine has no bridge, so Tidewatch runs on the host network
// (to reach the loopback registries) and its API listens on a free loopback port; the engine's socket is the
// test environment's; a scope keeps this Tidewatch to this stack.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { stringify } from 'yaml';
import { composeAvailable } from '../helpers/compose.js';
import { docker, requireEnv, waitFor } from '../helpers/env.js';
import { pushImage, removeContainers, removeImages, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/loopback-server.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call } from '../helpers/service.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';

const run = promisify(execFile);
const TOKEN = 'compose-config-json-token-0123456789';

t.test("a Watchtower compose file mounting config.json at /config.json pulls from the registry with authentication", { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env || !(await composeAvailable(t))) return;
  const engine = docker(env);
  const project = testPrefix('configjson');
  const dir = await mkdtemp(join(tmpdir(), 'tw-configjson-'));
  const port = await freePort();
  // What `docker login` writes on the user's host; the same directory serves Compose's own first pull.
  const auth = Buffer.from(`${env.authUser}:${env.authPassword}`).toString('base64');
  await writeFile(join(dir, 'config.json'), JSON.stringify({ auths: { [env.authRegistry]: { auth } } }, null, 2));
  const compose = (args: string[]) =>
    run('docker-compose', ['--ansi', 'never', '-p', project, '-f', join(dir, 'docker-compose.yml'), ...args], {
      cwd: dir,
      timeout: 300_000,
      env: { ...process.env, DOCKER_HOST: env.dockerHost, DOCKER_CONFIG: dir },
    });
  t.teardown(async () => {
    if (!t.passing()) t.comment(await dockerCli(env, ['logs', '--tail', '60', `${project}-watchtower`]).catch(() => 'no logs'));
    await compose(['down', '--remove-orphans']).catch(() => undefined);
    await removeContainers(engine, project);
    await removeImages(engine, project);
    await rm(dir, { recursive: true, force: true });
  });

  // Tidewatch's image in the local registry, as a user's would be in theirs (it watches itself too).
  const tidewatchRef = `${env.registry}/${project}/tidewatch:latest`;
  await dockerCli(env, ['tag', await tidewatchImage(env), tidewatchRef]);
  await dockerCli(env, ['push', '-q', tidewatchRef]);
  const credentials = { username: env.authUser, password: env.authPassword };
  const push = (version: number) =>
    pushImage({ registry: env.authRegistry, repo: `${project}/private`, marker: `${project} private v${version}`, cmd: QUICK_STOP_CMD, auth: credentials });
  const v1 = await push(1);

  const scope = { 'com.centurylinklabs.watchtower.scope': project };
  await writeFile(join(dir, 'docker-compose.yml'), stringify({
    version: '3.8',
    services: {
      watchtower: {
        image: tidewatchRef,
        container_name: `${project}-watchtower`,
        restart: 'unless-stopped',
        stop_grace_period: '2m',
        network_mode: 'host',
        volumes: [`${env.dockerSocket}:/var/run/docker.sock`, './config.json:/config.json'],
        environment: {
          WATCHTOWER_HTTP_API_ENDPOINTS: 'update',
          WATCHTOWER_HTTP_API_TOKEN: TOKEN,
          WATCHTOWER_SCOPE: project,
          TIDEWATCH_HTTP_API_HOST: '127.0.0.1',
          TIDEWATCH_HTTP_API_PORT: String(port),
        },
        labels: scope,
      },
      app: { image: v1.ref, network_mode: 'none', labels: scope },
    },
  }));

  await compose(['up', '-d']);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => ((await call(`${url}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 90_000, 250);
  const appId = async () => (await compose(['ps', '-q', 'app'])).stdout.trim();
  const before = await appId();
  const env2 = (await dockerCli(env, ['inspect', '--format', '{{range .Config.Env}}{{println .}}{{end}}', `${project}-watchtower`])).split('\n');
  t.notOk(env2.some((line) => line.startsWith('DOCKER_CONFIG=')), 'no DOCKER_CONFIG in the container: /config.json is read as Watchtower reads it');

  const v2 = await push(2);
  const res = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200, `POST /v1/update: ${res.text}`);
  const summary = (res.body as { summary?: { updated: number; failed: number } }).summary;
  t.same({ updated: summary?.updated, failed: summary?.failed }, { updated: 1, failed: 0 }, 'the private image was checked and pulled with the mounted credentials');
  const after = await appId();
  t.not(after, before, 'app is a new container');
  const info = await engine.getContainer(after).inspect();
  t.equal(info.Image, (await engine.getImage(v2.ref).inspect()).Id, 'app runs the new private image');
  t.ok(info.State.Running, 'app is running');
});
