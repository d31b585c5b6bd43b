// A new user with the README alone (README.md, "Run it"): its compose block and its commands, run with the
// real docker-compose against the private engine, give a running Tidewatch that keeps its schedule beside
// the dashboard, serves the dashboard with the token the README makes, and notifies what an update did.
//
// What cannot run here as the README writes it: the engine has no bridge, so Tidewatch runs on the host
// network (its `ports:` entry, which Compose refuses beside it, is dropped; the API listens on a free loopback
// port), the notification URL points at a loopback receiver instead of ntfy.sh, the image comes from the local
// registry, and a scope keeps this Tidewatch to this test's containers (other tests share the engine).
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parse, stringify } from 'yaml';
import { CaptureServer } from '../helpers/capture-server.js';
import { composeAvailable } from '../helpers/compose.js';
import { docker, requireEnv, waitFor } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/loopback-server.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, REPO_ROOT } from '../helpers/service.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';

const run = promisify(execFile);

t.test('the README alone: running, scheduled, notifying, with the dashboard', { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env || !(await composeAvailable(t))) return;
  const engine = docker(env);
  const project = testPrefix('readme');
  const dir = await mkdtemp(join(tmpdir(), 'tw-readme-'));
  const port = await freePort();
  const hook = await new CaptureServer().start();
  const compose = (args: string[]) =>
    run('docker-compose', ['--ansi', 'never', '-p', project, '-f', join(dir, 'docker-compose.yml'), ...args], {
      cwd: dir,
      timeout: 300_000,
      env: { ...process.env, DOCKER_HOST: env.dockerHost },
    });
  t.teardown(async () => {
    await hook.close();
    if (!t.passing()) t.comment(await compose(['logs', '--tail', '80', 'tidewatch']).then((o) => o.stdout, () => 'no logs'));
    await compose(['down', '--remove-orphans', '--volumes']).catch(() => undefined);
    await removeContainers(engine, project);
    await removeImages(engine, project);
    await rm(dir, { recursive: true, force: true });
  });

  const readme = await readFile(join(REPO_ROOT, 'README.md'), 'utf8');
  const block = /```yaml\n(services:[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README.md has no compose block any more');
  const file = parse(block) as { services: { tidewatch: Record<string, unknown> & { environment: Record<string, string> } } };
  const tidewatch = file.services.tidewatch;
  const commands = /```sh\n(mkdir -p secrets[^\n]*?) && docker compose up -d\n```/.exec(readme)?.[1];
  if (!commands) throw new Error("README.md's commands after the compose block changed");

  // The README's own commands make the token; Tidewatch's image is in the local registry, as a user's would be.
  await run('bash', ['-c', commands], { cwd: dir });
  const token = (await readFile(join(dir, 'secrets/token'), 'utf8')).trim();
  t.match(token, /^[0-9a-f]{48}$/, 'the README made a token');
  const tidewatchRef = `${env.registry}/${project}/tidewatch:latest`;
  await dockerCli(env, ['tag', await tidewatchImage(env), tidewatchRef]);
  await dockerCli(env, ['push', '-q', tidewatchRef]);

  t.equal(tidewatch['restart'], 'unless-stopped');
  t.ok(tidewatch['stop_grace_period']);
  const scope = { 'tidewatch.scope': project };
  tidewatch['image'] = tidewatchRef;
  tidewatch['container_name'] = `${project}-tidewatch`;
  delete tidewatch['ports'];
  tidewatch['network_mode'] = 'host';
  tidewatch['volumes'] = (tidewatch['volumes'] as string[]).map((v) => v.replace(/^\/var\/run\/docker\.sock:/, `${env.dockerSocket}:`));
  tidewatch['labels'] = scope;
  const readmeUrl = tidewatch.environment['TIDEWATCH_NOTIFICATION_URL'];
  t.match(readmeUrl, /^ntfy:\/\//, 'the README notifies through ntfy');
  Object.assign(tidewatch.environment, {
    TIDEWATCH_NOTIFICATION_URL: `generic+http://${hook.host}/notify?template=json`,
    TIDEWATCH_SCOPE: project,
    TIDEWATCH_HTTP_API_HOST: '127.0.0.1',
    TIDEWATCH_HTTP_API_PORT: String(port),
  });
  await writeFile(join(dir, 'docker-compose.yml'), stringify(file));

  // An app of the user's, with a newer image waiting later.
  const push = (v: number) => pushImage({ registry: env.registry, repo: `${project}/web`, marker: `${project} web v${v}`, cmd: QUICK_STOP_CMD });
  const v1 = await push(1);
  await pullImage(engine, v1.ref);
  await runContainer(engine, { name: `${project}-web`, image: v1.ref, labels: scope });

  await compose(['up', '-d']);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => ((await call(`${url}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined), 120_000, 500);

  // Running, with its restart policy, and scheduled: the schedule is kept beside the update endpoint.
  const info = await engine.getContainer(`${project}-tidewatch`).inspect();
  t.equal(info.HostConfig.RestartPolicy?.Name, 'unless-stopped', 'restart policy');
  t.ok(info.State.Running, 'running');
  const logs = async () => (await compose(['logs', '--no-color', 'tidewatch'])).stdout;
  await waitFor(async () => (/scheduled updates enabled/.test(await logs()) ? true : undefined), 60_000, 500);
  const started = await logs();
  t.match(started, /"next_run":"\d{4}-\d\d-\d\dT\d\d:00:00\.000Z"/, 'the next run is on the hour the README schedules');
  t.notMatch(started, /periodic updates are off/, 'periodic updates are not switched off by the dashboard');

  // The dashboard, with the README's token.
  const page = await call(`${url}/ui/`);
  t.equal(page.status, 200, 'the dashboard page');
  t.match(page.text, /<title>Tidewatch<\/title>/);
  const list = await call(`${url}/v1/containers`, { token });
  t.equal(list.status, 200, 'the token the README made signs in');
  t.ok((list.body as { containers: { name: string }[] }).containers.some((c) => c.name === `${project}-web`), 'the app is listed');

  // An update (what the 04:00 run or the dashboard's button does) is notified.
  const v2 = await push(2);
  const updated = await call(`${url}/v1/update`, { method: 'POST', token });
  t.equal(updated.status, 200, updated.text);
  t.match(updated.body, { summary: { updated: 1, failed: 0 } });
  const [note] = await waitFor(() => (hook.requests.length > 0 ? hook.requests : undefined), 30_000);
  t.match(JSON.stringify(note?.json), `${project}-web`, 'the notification names the updated container');
  const web = await engine.getContainer(`${project}-web`).inspect();
  t.equal(web.Image, (await engine.getImage(v2.ref).inspect()).Id, 'the app runs the new image');
});
