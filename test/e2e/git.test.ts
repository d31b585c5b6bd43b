// Issue 6 end to end: a container that follows a Git branch, served by the real `git http-backend`
// on loopback, checked and updated through the real binary against the private engine and registry.
import t from 'tap';
import { docker, requireEnv } from '../helpers/env.js';
import { GitServer } from '../helpers/git-server.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../helpers/images.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, startService } from '../helpers/service.js';

const TOKEN = 'e2e-git-token-0123456789';
const REVISION = 'org.opencontainers.image.revision';

interface CheckRecord {
  name: string;
  update_available: boolean;
  update_source: string;
  git_repo?: string;
  git_ref?: string;
  git_commit?: string;
  changelog?: string;
  latest_image_id: string;
  current_revision?: string;
  error?: string;
}

t.test('a Git-watched container: stale when the branch moves, updated once the image for the head exists', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('e2e-git');
  const gitServer = await GitServer.start();
  t.teardown(async () => {
    await gitServer.close();
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });

  const [r1] = (await gitServer.createRepo('app', { commits: 1 })) as [string];
  const repo = `${prefix}/app`;
  const image1 = await pushImage({ registry: env.registry, repo, labels: { [REVISION]: r1 }, cmd: QUICK_STOP_CMD });
  await pullImage(engine, image1.ref);
  const name = `${prefix}-app`;
  const container = await runContainer(engine, {
    name,
    image: image1.ref,
    labels: { 'tidewatch.git.repo': gitServer.repoUrl('app'), 'tidewatch.git.ref': 'main' },
  });

  const service = await startService([
    '--host', env.dockerHost,
    '--http-api-endpoints', 'check,update',
    '--http-api-token', TOKEN,
    '--update-grace-period', '1s',
    `${prefix}-.*`,
  ]);
  t.teardown(() => service.stop());

  const check = async (): Promise<CheckRecord> => {
    const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
    t.equal(res.status, 200);
    return (res.body as { containers: CheckRecord[] }).containers.find((c) => c.name === name) as CheckRecord;
  };
  const update = async () => {
    const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
    t.equal(res.status, 200);
    return res.body as { summary: { updated: number; skipped: number; failed: number } };
  };

  const atR1 = await check();
  t.match(atR1, { update_available: false, update_source: 'git', git_commit: r1, git_ref: 'main', latest_image_id: '' });
  t.equal(atR1.git_repo, gitServer.repoUrl('app'));
  t.equal(atR1.current_revision, r1, 'the OCI revision of the running image');

  const r2 = await gitServer.commit('app', 'main');
  const atR2 = await check();
  t.match(atR2, { update_available: true, update_source: 'git', git_commit: r2 });
  t.ok(atR2.changelog, 'a changelog location is given');

  const early = await update();
  t.match(early.summary, { updated: 0, skipped: 1, failed: 0 }, 'no image for R2 yet: skipped');
  const stillOld = await engine.getContainer(name).inspect();
  t.equal(stillOld.Id, container.id, 'the container was not touched');
  t.ok(stillOld.State.Running);

  const image2 = await pushImage({ registry: env.registry, repo, labels: { [REVISION]: r2 }, cmd: QUICK_STOP_CMD });
  const done = await update();
  t.match(done.summary, { updated: 1, skipped: 0, failed: 0 }, 'the image for R2 is published: updated');
  const now = await engine.getContainer(name).inspect();
  t.not(now.Id, container.id, 'a new container');
  t.equal(now.Image, image2.configDigest, 'running the image built from R2');
  t.equal(now.Config.Labels['tidewatch.git.repo'], gitServer.repoUrl('app'), 'its labels kept');
  t.ok(now.State.Running);

  const after = await check();
  t.equal(after.update_available, false, 'up to date at R2');
});
