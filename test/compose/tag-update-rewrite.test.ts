// A tag update of a Compose-managed container with the real docker-compose, engine and registry
// (docs/compose.md#tag-updates-and-compose). Without --compose-rewrite the check record's note, the
// update's note and the notification (to a loopback webhook) name the file and the service, the file is left as it was, and the next `up -d` indeed
// puts the container back on the old tag. With --compose-rewrite the service's `image:` is rewritten in
// place (every other byte kept, the other services, the anchor and the comments untouched), `up -d`
// keeps the new tag (Compose recreates the container once on the same image: its config hash covers the
// image name), and then `up -d` changes nothing, and neither does `--force-recreate` change the tag.
//
// The tag update is the registry source's own (`tidewatch.tag.policy: minor` on the services, docs/tags.md),
// applied by the Docker runtime's pull by digest.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { createTidewatch, type Tidewatch } from '../../core/index.js';
import { dockerPlugin } from '../../plugins/docker/index.js';
import { notifyPlugin } from '../../plugins/notify/index.js';
import { registryPlugin } from '../../plugins/registry/index.js';
import { CaptureServer } from '../helpers/capture-server.js';
import { composeAvailable } from '../helpers/compose.js';
import { docker, requireEnv, waitFor } from '../helpers/env.js';
import { pushImage, removeContainers, removeImages, testPrefix } from '../helpers/images.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';

const run = promisify(execFile);

t.test('a tag update and the Compose file: the note without the flag, the rewrite with it', { timeout: 600_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env || !(await composeAvailable(t))) return;
  const engine = docker(env);
  const project = testPrefix('compose-tags').replace(/-/g, '');
  const dir = await mkdtemp(join(tmpdir(), 'tw-compose-tags-'));
  const file = join(dir, 'docker-compose.yml');
  const compose = (args: string[]) =>
    run('docker-compose', ['--ansi', 'never', '-p', project, '-f', file, ...args], { cwd: dir, timeout: 300_000, env: { ...process.env, DOCKER_HOST: env.dockerHost } });
  let tw: Tidewatch | undefined;
  const hook = await new CaptureServer().start();
  t.teardown(() => hook.close());
  t.teardown(async () => {
    await tw?.close();
    await compose(['down', '--remove-orphans']).catch(() => undefined);
    await removeContainers(engine, project);
    await removeImages(engine, project);
    await rm(dir, { recursive: true, force: true });
  });

  const push = (name: string, tag: string) =>
    pushImage({ registry: env.registry, repo: `${project}/${name}`, tag, marker: `${project} ${name} ${tag}`, cmd: QUICK_STOP_CMD });
  const v100 = await push('app', '1.0.0');
  const v110 = await push('app', '1.1.0');
  const repo = `${env.registry}/${project}/app`;
  const other = await push('other', '2.0.0');
  const yaml = `# ${project}: pinned versions, updated by Tidewatch
version: "3.7"
x-common: &common
  network_mode: none   # the test engine has no bridge
  labels:
    team: platform
    tidewatch.tag.policy: minor

services:
  app:
    <<: *common
    image: ${v100.ref}   # keep pinned
  other:
    <<: *common
    image: "${other.ref}"
`;
  await writeFile(file, yaml);
  await compose(['up', '-d']);
  const appId = async () => (await compose(['ps', '-q', 'app'])).stdout.trim();
  const inspectApp = async () => engine.getContainer(await appId()).inspect();
  const otherBefore = (await compose(['ps', '-q', 'other'])).stdout.trim();

  const start = (composeRewrite: boolean) =>
    createTidewatch({
      plugins: [
        { plugin: dockerPlugin, options: { host: env.dockerHost, names: [`${project}_.*`], stopTimeoutMs: 5000, gracePeriodMs: 1000, composeRewrite } },
        { plugin: registryPlugin, options: { tlsSkip: true } },
        // The default notification (default-legacy) to a loopback webhook, the text as the body.
        { plugin: notifyPlugin, options: { notificationUrl: [`generic+http://${hook.host}/hook`], dataDir: dir } },
      ],
    });

  // Without the flag: the check says what Compose will do, naming the file and the service.
  tw = await start(false);
  const checked = (await tw.check()).results.find((r) => r.target.name === `${project}_app_1`);
  t.match(checked?.staleness.note, `Compose file ${file} (service app) names ${v100.ref}`, 'the check record\'s note names the file and service');
  t.match(checked?.staleness.note, '--compose-rewrite');
  let report = await tw.update();
  let result = report.results.find((r) => r.target.name === `${project}_app_1`);
  t.equal(result?.outcome, 'updated', `updated: ${result?.error ?? ''}`);
  t.equal(result?.newImage, v110.ref, 'the container runs the new tag');
  t.match(result?.note, `Compose file ${file} (service app) still names ${v100.ref}`);
  t.match(result?.note, `change it to ${v110.ref}`);
  t.equal(await readFile(file, 'utf8'), yaml, 'the file is untouched');
  const warned = await waitFor(() => hook.requests.find((r) => r.body.includes('still names')), 15_000);
  t.match(warned.body, `${repo} 1.0.0 → 1.1.0 (minor)`, 'the notification names the version change');
  t.match(warned.body, `Compose file ${file} (service app) still names ${v100.ref}`, 'and the file and service');
  t.equal((await inspectApp()).Config.Image, v110.ref);
  await tw.close();
  tw = undefined;
  // Compose 1.29 compares only its config hash, which Tidewatch's recreation kept: a plain `up -d` leaves
  // the container alone while the file is unchanged. The next time Compose recreates it, it is back on
  // the old tag, as the note says.
  const plain = await compose(['up', '-d']);
  t.comment(`up -d without the rewrite: ${plain.stderr.trim()} (${(await inspectApp()).Config.Image})`);
  await compose(['up', '-d', '--force-recreate', 'app']);
  t.equal((await inspectApp()).Config.Image, v100.ref, 'without the rewrite, Compose recreating the container went back to the old tag');

  // With the flag: the file is rewritten in place, and Compose keeps the new tag.
  tw = await start(true);
  report = await tw.update();
  result = report.results.find((r) => r.target.name === `${project}_app_1`);
  t.equal(result?.outcome, 'updated', `updated: ${result?.error ?? ''}`);
  t.match(result?.note, `Compose file ${file} (service app) rewritten: image ${v100.ref} → ${v110.ref}`);
  // The notification says what changed, and what happened to the file.
  const sent = await waitFor(() => hook.requests.find((r) => r.body.includes('rewritten')), 15_000);
  t.match(sent.body, `Updated /${project}_app_1 from`);
  t.match(sent.body, `${repo} 1.0.0 → 1.1.0 (minor)`, 'the notification names the version change');
  const rewritten = await readFile(file, 'utf8');
  t.equal(rewritten, yaml.replace(`image: ${v100.ref}   # keep pinned`, `image: ${v110.ref}   # keep pinned`), 'only that image changed, comments and anchors kept');
  const updatedInfo = await inspectApp();
  t.equal(updatedInfo.Config.Image, v110.ref);
  await tw.close();
  tw = undefined;

  // Compose's config hash covers the image (docs/compose.md#what-compose-sees-after-an-update): the first
  // `up -d` may recreate the container once, on the same new image; it never goes back to the old tag.
  const first = await compose(['up', '-d']);
  t.notMatch(first.stderr, /Creating|Pulling/, 'no new container of another image');
  t.comment(`up -d after the rewrite:\n${first.stderr.trim()}`);
  const afterFirst = await inspectApp();
  t.equal(afterFirst.Config.Image, v110.ref, 'up -d keeps the new tag');
  t.equal(afterFirst.Image, updatedInfo.Image, 'on the same image');
  t.ok(afterFirst.State.Running);
  const second = await compose(['up', '-d']);
  t.notMatch(second.stderr, /Recreating/, `then up -d changes nothing:\n${second.stderr.trim()}`);
  t.equal((await inspectApp()).Id, afterFirst.Id, 'the container id stays the same');
  await compose(['up', '-d', '--force-recreate', 'app']);
  t.equal((await inspectApp()).Config.Image, v110.ref, 'even a forced recreation keeps the new tag');
  t.equal((await compose(['ps', '-q', 'other'])).stdout.trim(), otherBefore, 'the other service was never touched');
});
