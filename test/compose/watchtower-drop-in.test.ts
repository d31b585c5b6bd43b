// The Watchtower drop-in, proven with the real docker-compose (docs/compose.md): examples/docker-compose.yml,
// a Watchtower user's file with only the image changed, brings up Tidewatch from the image beside an app of
// three services. Newer images are pushed; Tidewatch updates the watched services; the Compose CLI then
// shows them up on the new images, the opted-out one untouched, and `up -d` and `down` stay clean.
//
// The example runs as written except for what cannot run here. The private engine has no bridge, so
// Tidewatch runs on the host network (to reach the loopback registry) and its `ports:` entry, which
// Compose refuses beside the host network, is the one line taken out; the API listens on a free loopback
// port instead. The rest is an override file, the way Compose layers files: images from the local
// registry, no network for the app, the private engine's socket, and a scope that keeps this Tidewatch
// to this stack (other tests share the engine).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { composeAvailable } from '../helpers/compose.js';
import { docker, requireEnv, waitFor, type TestEnv } from '../helpers/env.js';
import { pushImage, removeContainers, removeImages, testPrefix } from '../helpers/images.js';
import { CaptureServer } from '../helpers/capture-server.js';
import { freePort } from '../helpers/loopback-server.js';
import { haveGo, renderWithGo } from '../helpers/go-template.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, REPO_ROOT } from '../helpers/service.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';

const run = promisify(execFile);

const EXAMPLE = join(REPO_ROOT, 'examples/docker-compose.yml');
const TOKEN = 'compose-drop-in-token-0123456789';
const APP_SERVICES = ['web', 'api', 'db'] as const;

interface Stack {
  compose(args: string[]): Promise<{ stdout: string; stderr: string }>;
}

/** The example without the watchtower service's `ports:` (see the top of this file). */
async function exampleWithoutPorts(dir: string): Promise<string> {
  const example = parse(await readFile(EXAMPLE, 'utf8')) as { services: Record<string, Record<string, unknown>> };
  const watchtower = example.services['watchtower'];
  if (!watchtower?.['ports']) throw new Error('examples/docker-compose.yml: the watchtower service publishes no port any more');
  delete watchtower['ports'];
  const file = join(dir, 'docker-compose.yml');
  await writeFile(file, stringify(example));
  return file;
}

function stackFor(env: TestEnv, project: string, files: readonly string[], notificationUrl: string): Stack {
  return {
    async compose(args) {
      return run('docker-compose', ['--ansi', 'never', '-p', project, ...files.flatMap((f) => ['-f', f]), ...args], {
        cwd: REPO_ROOT,
        timeout: 300_000,
        env: {
          ...process.env,
          DOCKER_HOST: env.dockerHost,
          WATCHTOWER_HTTP_API_TOKEN: TOKEN,
          // The example's notification settings (report, template, title tag, host name) send here.
          WATCHTOWER_NOTIFICATION_URL: notificationUrl,
        },
      });
    },
  };
}

t.test('a Watchtower compose file with the image changed: updates, then up -d and down stay clean', { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env || !(await composeAvailable(t))) return;
  const engine = docker(env);
  const project = testPrefix('compose');
  const dir = await mkdtemp(join(tmpdir(), 'tw-compose-'));
  const override = join(dir, 'local.override.json');
  const port = await freePort();
  const hook = await new CaptureServer().start();
  t.teardown(() => hook.close());
  const stack = stackFor(env, project, [await exampleWithoutPorts(dir), override], `generic+http://${hook.host}/hook?template=json`);
  t.teardown(async () => {
    if (!t.passing()) t.comment((await dockerCli(env, ['logs', '--tail', '60', `${project}-tidewatch`]).catch(() => 'no logs')));
    await stack.compose(['down', '--remove-orphans']).catch(() => undefined);
    await removeContainers(engine, project);
    await removeImages(engine, project);
    await rm(dir, { recursive: true, force: true });
  });

  // Tidewatch from the image, in the local registry as a user's would be in theirs.
  const tidewatchRef = `${env.registry}/${project}/tidewatch:latest`;
  await dockerCli(env, ['tag', await tidewatchImage(env), tidewatchRef]);
  await dockerCli(env, ['push', '-q', tidewatchRef]);
  const push = (service: string, version: number) =>
    pushImage({ registry: env.registry, repo: `${project}/${service}`, marker: `${project} ${service} v${version}`, cmd: QUICK_STOP_CMD });
  const v1 = Object.fromEntries(await Promise.all(APP_SERVICES.map(async (s) => [s, await push(s, 1)] as const)));

  const scope = { 'com.centurylinklabs.watchtower.scope': project };
  const app = (service: string) => ({ image: v1[service]?.ref, network_mode: 'none', labels: scope });
  // JSON is YAML: Compose reads it as an override.
  await writeFile(override, JSON.stringify({
    services: {
      watchtower: {
        image: tidewatchRef,
        container_name: `${project}-tidewatch`,
        network_mode: 'host',
        volumes: [`${env.dockerSocket}:/var/run/docker.sock`],
        environment: { WATCHTOWER_SCOPE: project, TIDEWATCH_HTTP_API_HOST: '127.0.0.1', TIDEWATCH_HTTP_API_PORT: String(port) },
        labels: scope,
      },
      web: app('web'),
      api: app('api'),
      db: app('db'),
    },
  }, null, 2));

  const up = await stack.compose(['up', '-d']);
  t.comment(`first up -d:\n${up.stderr.trim()}`);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => ((await call(`${url}/v1/metrics`, { token: TOKEN }).catch(() => undefined))?.status === 200 ? true : undefined), 60_000, 250);

  const idsByService = async (): Promise<Record<string, { id: string; image: string; running: boolean }>> => {
    const out: Record<string, { id: string; image: string; running: boolean }> = {};
    for (const service of APP_SERVICES) {
      const { stdout } = await stack.compose(['ps', '-q', service]);
      const ids = stdout.trim().split('\n').filter(Boolean);
      if (ids.length !== 1) throw new Error(`${service}: ${ids.length} containers`);
      const info = await engine.getContainer(ids[0]!).inspect();
      out[service] = { id: info.Id, image: info.Image, running: info.State.Running };
    }
    return out;
  };
  const before = await idsByService();

  // Newer images for every app service, the opted-out db included.
  const v2 = Object.fromEntries(await Promise.all(APP_SERVICES.map(async (s) => [s, await push(s, 2)] as const)));
  const res = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200, `POST /v1/update: ${res.text}`);
  const summary = (res.body as { summary?: { updated: number; failed: number } }).summary;
  t.equal(summary?.failed, 0, 'nothing failed');
  t.ok((summary?.updated ?? 0) >= 2, 'web and api updated');

  const after = await idsByService();
  const localId = async (ref: string | undefined) => (await engine.getImage(ref ?? '').inspect()).Id;
  for (const service of ['web', 'api'] as const) {
    t.equal(after[service]?.image, await localId(v2[service]?.ref), `${service} runs the new image`);
    t.not(after[service]?.id, before[service]?.id, `${service} is a new container`);
  }
  t.same(after['db'], before['db'], 'db, opted out, is untouched: same container, same image, running');
  t.equal(after['db']?.image, await localId(v1['db']?.ref));

  // The notification, as the example configures it, with the text Go's text/template renders for
  // Watchtower from the same report (lists sorted by container id).
  const [request] = await waitFor(() => (hook.requests.length > 0 ? hook.requests : undefined), 15_000);
  const message = request?.json as { title?: string; message?: string } | undefined;
  t.equal(message?.title, '[home] Tidewatch updates on home-server', 'title tag and host name from the WATCHTOWER_ variables');
  const example = parse(await readFile(EXAMPLE, 'utf8')) as { services: { watchtower: { environment: Record<string, string> } } };
  const template = example.services.watchtower.environment['WATCHTOWER_NOTIFICATION_TEMPLATE'] as string;
  const updated = (['web', 'api'] as const)
    .map((service) => ({
      ID: before[service]?.id as string,
      // Watchtower's .Name is the Engine's name, with its leading `/` (docs/notifications.md).
      Name: `/${project}_${service}_1`,
      ImageName: v1[service]?.ref as string,
      CurrentImageID: before[service]?.image as string,
      LatestImageID: after[service]?.image as string,
      State: 'Updated',
    }))
    .sort((a, b) => (a.ID < b.ID ? -1 : 1));
  if (!haveGo() && process.env['CI'] === 'true') throw new Error('go is missing (CI=true: the comparison must not be skipped)');
  if (haveGo()) {
    const [go] = renderWithGo([{
      Name: 'compose example', Template: template, Root: 'data',
      Data: { Title: message?.title ?? '', Host: 'home-server', Entries: [], Report: { Updated: updated, Scanned: updated } },
    }]);
    t.equal(message?.message, go?.output, "the same text Watchtower's template renders in Go");
  }
  t.match(message?.message, new RegExp(`- /${project}_web_1 updated to [0-9a-f]{12}\\n`));

  // What the Compose CLI says: every service up, under its Compose name.
  const ps = (await stack.compose(['ps'])).stdout;
  for (const service of [...APP_SERVICES, 'tidewatch']) {
    const name = service === 'tidewatch' ? `${project}-tidewatch` : `${project}_${service}_1`;
    t.match(ps, new RegExp(`^${name}\\s.*\\sUp\\b`, 'm'), `docker-compose ps: ${name} is up`);
  }
  t.notMatch(ps, /Exit|Restarting/, 'nothing exited or restarting');

  // The next `up -d`: no name conflict. Compose v1's config hash covers the image id, so it recreates
  // the updated services once, on the same new image (docs/compose.md).
  const again = await stack.compose(['up', '-d']);
  t.comment(`up -d after the update:\n${again.stderr.trim()}`);
  t.notMatch(again.stderr, /[Cc]onflict/, 'no name conflict');
  const settled = await idsByService();
  for (const service of APP_SERVICES) t.ok(settled[service]?.running, `${service} running after up -d`);
  t.equal(settled['web']?.image, after['web']?.image, 'web stays on the new image');
  t.equal(settled['api']?.image, after['api']?.image, 'api stays on the new image');
  t.equal(settled['db']?.id, before['db']?.id, 'db still untouched');
  const third = await stack.compose(['up', '-d']);
  t.notMatch(third.stderr, /Recreating/, `a third up -d changes nothing:\n${third.stderr.trim()}`);

  // `down` leaves nothing: no renamed (aside) or orphaned container of this stack.
  await stack.compose(['down']);
  const left = await engine.listContainers({ all: true });
  t.same(left.filter((c) => c.Names.some((n) => n.includes(project))).map((c) => c.Names[0]), [], 'down removed every container');
});
