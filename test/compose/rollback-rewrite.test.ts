// Rollback and --compose-rewrite agree (docs/compose.md#rollback-and-compose), through the real binary,
// docker-compose, engine and registry: a tag update rewrote the service's `image:` to 1.1.0; POST /v1/rollback
// puts the container back on 1.0.0 and the file back to 1.0.0, so `docker-compose up -d` (and a forced
// recreation) keeps 1.0.0. Then, after a second update, a person edits the file: the second rollback leaves
// the file alone, and its answer and audit entry say so.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { composeAvailable } from '../helpers/compose.js';
import { docker, requireEnv } from '../helpers/env.js';
import { pushImage, removeContainers, removeImages, testPrefix } from '../helpers/images.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const run = promisify(execFile);
const TOKEN = 'compose-rollback-token-0123456789';

t.test('a rollback rewrites the Compose file back; a file edited since is left alone and said', { timeout: 300_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env || !(await composeAvailable(t))) return;
  const engine = docker(env);
  const project = testPrefix('compose-rb').replace(/-/g, '');
  const dir = await mkdtemp(join(tmpdir(), 'tw-compose-rb-'));
  const file = join(dir, 'docker-compose.yml');
  const compose = (args: string[]) =>
    run('docker-compose', ['--ansi', 'never', '-p', project, '-f', file, ...args], { cwd: dir, timeout: 120_000, env: { ...process.env, DOCKER_HOST: env.dockerHost } });
  t.teardown(async () => {
    await compose(['down', '--remove-orphans']).catch(() => undefined);
    await removeContainers(engine, project);
    await removeImages(engine, project);
    await rm(dir, { recursive: true, force: true });
  });

  const repo = `${project}/app`;
  const push = (tag: string) => pushImage({ registry: env.registry, repo, tag, marker: `${repo} ${tag}`, cmd: QUICK_STOP_CMD });
  const v100 = await push('1.0.0');
  const v110 = await push('1.1.0');
  const yaml = `# ${project}
services:
  app:
    image: ${v100.ref}   # pinned, moved by Tidewatch
    network_mode: none   # the test engine has no bridge
    labels:
      tidewatch.tag.policy: minor
`;
  await writeFile(file, yaml);
  await compose(['up', '-d']);
  const name = `${project}_app_1`;
  // Compose 1.29 names it <project>_app_1, and keeps the name when it recreates it.
  const inspectApp = () => engine.getContainer(name).inspect();

  const service = await startService([
    '--host', env.dockerHost, '--compose-rewrite', '--http-api-endpoints', 'update,rollback,audit', '--http-api-token', TOKEN,
    '--update-grace-period', '1s', '--stop-timeout', '5s', `${project}_.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  const post = (path: string) => call(`${service.url}${path}`, { method: 'POST', token: TOKEN });

  let res = await post('/v1/update');
  t.match(res.body, { summary: { updated: 1, failed: 0 } }, res.text);
  const rewritten = yaml.replace(v100.ref, v110.ref);
  t.equal(await readFile(file, 'utf8'), rewritten, 'the update rewrote the file to 1.1.0');

  res = await post(`/v1/rollback?container=${name}`);
  t.equal(res.status, 200, res.text);
  t.match(res.body, { summary: { updated: 1 }, to: { image: v100.ref }, note: `Compose file ${file} (service app) rewritten back after the rollback: image ${v110.ref} → ${v100.ref}.` });
  t.equal(await readFile(file, 'utf8'), yaml, 'the rollback rewrote it back, byte for byte');
  const back = await inspectApp();
  t.equal(back.Config.Image, v100.ref);

  // Compose now agrees with the rollback: neither up -d nor a forced recreation brings 1.1.0 back.
  await compose(['up', '-d']);
  let now = await inspectApp();
  t.equal(now.Config.Image, v100.ref, 'up -d keeps 1.0.0');
  t.equal(now.Image, v100.configDigest, 'on the 1.0.0 image');
  await compose(['up', '-d', '--force-recreate', 'app']);
  now = await inspectApp();
  t.equal(now.Image, v100.configDigest, 'a forced recreation too');

  // The recreated container is a new one, not held: the next update moves it (and the file) to 1.1.0 again.
  res = await post('/v1/update');
  t.match(res.body, { summary: { updated: 1, failed: 0 } }, res.text);
  t.equal(await readFile(file, 'utf8'), rewritten);
  // A person edits the file since: the rollback must not overwrite it, and says so.
  const edited = rewritten.replace(v110.ref, `${env.registry}/${repo}:1.1.1`);
  await writeFile(file, edited);
  res = await post(`/v1/rollback?container=${name}`);
  t.equal(res.status, 200, res.text);
  const note = (res.body as { note?: string }).note ?? '';
  t.match(note, `Compose file ${file} (service app) was not rewritten back after the rollback: it names ${env.registry}/${repo}:1.1.1, not ${v110.ref}`);
  t.equal(await readFile(file, 'utf8'), edited, 'the edited file is left as the person wrote it');
  t.equal((await inspectApp()).Image, v100.configDigest, 'the container is rolled back all the same');
  const audit = (await call(`${service.url}/v1/audit?container=${name}`, { token: TOKEN })).body as { entries: { action: string; note?: string }[] };
  const rollbacks = audit.entries.filter((e) => e.action === 'rollback');
  t.equal(rollbacks.length, 2);
  t.same(rollbacks.map((e) => e.note?.includes('rewritten back after the rollback: image') ?? false), [true, false], 'the first says the file was rewritten back');
  t.ok(rollbacks.some((e) => e.note === note), 'the audit entry carries the same note');
});
