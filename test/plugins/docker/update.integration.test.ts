// Safe replacement against the real engine and registry: the configuration survives an update, and a
// new image that crashes or turns unhealthy leaves the old container running under its name.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { docker, requireEnv } from '../../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix } from '../../helpers/images.js';
import { QUICK_STOP_CMD, containerNames, tidewatchFor } from './fixtures/setup.js';
import { runningOn, scenario } from '../../helpers/scenarios.js';

const SECOND = 1_000_000_000;

/** The Engine's HTTP status for a request: 200 when it succeeded. */
async function statusOf(request: Promise<unknown>): Promise<number> {
  try {
    await request;
    return 200;
  } catch (err) {
    return (err as { statusCode?: number }).statusCode ?? 0;
  }
}

t.test('an update keeps env, labels, mounts, restart policy, command, network mode and name', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('docker-update');
  const hostDir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const volume = `${prefix}-data`;
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
    await engine.getVolume(volume).remove().catch(() => undefined);
    await rm(hostDir, { recursive: true, force: true });
  });

  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: `${repo} v1`, env: ['FROM_IMAGE=1'], labels: { 'org.example.v': '1' } });
  await pullImage(engine, v1.ref);
  await engine.createVolume({ Name: volume });
  const name = `${prefix}-app`;
  const old = await runContainer(engine, {
    name,
    image: v1.ref,
    env: ['FOO=bar', 'FROM_IMAGE=1'],
    labels: { 'org.example.team': 'ops', 'tidewatch.stop-signal': 'SIGTERM' },
    cmd: QUICK_STOP_CMD,
    restartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 },
    hostConfig: { Binds: [`${hostDir}:/host:ro`], Mounts: [{ Type: 'volume', Source: volume, Target: '/data' }] },
  });
  const v2 = await pushImage({ registry: env.registry, repo, marker: `${repo} v2`, env: ['FROM_IMAGE=2'], labels: { 'org.example.v': '2' } });

  const { tw, events } = await tidewatchFor(env, prefix, { cleanup: true });
  t.teardown(() => tw.close());
  const report = await tw.update();
  // The failed results' errors in the message: a failure says why, not only how many.
  const errors = report.results.filter((r) => r.error).map((r) => `${r.target.name}: ${r.error}`);
  t.match(report.summary, { scanned: 1, updated: 1, failed: 0, restarted: 0, skipped: 0 }, `updated, no error (${errors.join('; ') || 'none'})`);

  const now = await engine.getContainer(name).inspect();
  t.not(now.Id, old.id, 'a new container');
  t.equal(now.Image, v2.configDigest, 'runs the new image');
  t.equal(now.Config.Image, v1.ref, 'under the same image name');
  t.ok(now.State.Running);
  t.ok(now.Config.Env.includes('FOO=bar'), 'user env kept');
  t.ok(now.Config.Env.includes('FROM_IMAGE=2'), "the image's own env comes from the new image");
  t.equal(now.Config.Labels['org.example.team'], 'ops', 'user labels kept');
  t.equal(now.Config.Labels['org.example.v'], '2', "the image's labels come from the new image");
  t.same(now.Config.Cmd, QUICK_STOP_CMD, 'command kept');
  t.same(now.HostConfig.RestartPolicy, { Name: 'on-failure', MaximumRetryCount: 3 });
  t.equal(now.HostConfig.NetworkMode, 'none');
  t.same(now.HostConfig.Binds, [`${hostDir}:/host:ro`]);
  t.match(now.Mounts.find((m) => m.Destination === '/data'), { Type: 'volume', Name: volume });
  t.same(
    now.Mounts.map((m) => m.Destination).sort(),
    ['/data', '/host'],
  );
  t.same(await containerNames(engine, prefix), [name], 'nothing left aside');
  t.equal(await statusOf(engine.getContainer(old.id).inspect()), 404, 'the old container is gone');

  const types = events.map((e) => e.type);
  t.ok(types.includes('update_started') && types.includes('update_completed'));
  const cleanup = events.find((e) => e.type === 'image_cleanup');
  t.match(cleanup?.data, { images: [{ image_id: v1.configDigest, image_name: v1.ref }] }, 'the replaced image was removed');
  t.equal(await statusOf(engine.getImage(v1.configDigest).inspect()), 404);
});

t.test('a new image that exits at once or turns unhealthy is rolled back', async (t) => {
  const s = await scenario(t, 'docker-rollback');
  if (!s) return;
  const { env, engine, prefix } = s;

  const cases = [
    { label: 'exits', next: { cmd: ['/bin/sh', '-c', 'exit 3'] }, error: /exited with code 3|restarting/ },
    {
      label: 'unhealthy',
      next: { cmd: QUICK_STOP_CMD, healthcheck: { Test: ['CMD', '/bin/false'], Interval: SECOND / 10, Timeout: SECOND, Retries: 1 } },
      error: /unhealthy/,
    },
  ];
  for (const { label, next, error } of cases) {
    await t.test(label, async (t) => {
      const repo = `${prefix}/${label}`;
      const v1 = await pushImage({ registry: env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
      await pullImage(engine, v1.ref);
      const name = `${prefix}-${label}-app`;
      const old = await runContainer(engine, { name, image: v1.ref, restartPolicy: 'unless-stopped' });
      await pushImage({ registry: env.registry, repo, marker: `${repo} v2`, ...next });

      const { tw, events } = await tidewatchFor(env, `${prefix}-${label}`, { gracePeriodMs: 5000 });
      t.teardown(() => tw.close());
      const report = await tw.update();
      t.match(report.summary, { updated: 0, failed: 1 });
      t.match(report.results[0], { outcome: 'failed', rolledBack: true, error });
      const failed = events.find((e) => e.type === 'update_failed');
      t.match(failed?.data, { container: name, rolled_back: true });

      const now = await engine.getContainer(name).inspect();
      t.equal(now.Id, old.id, 'the old container is back under its name');
      t.ok(now.State.Running, 'and running');
      t.equal(now.Image, v1.configDigest);
      t.same(await containerNames(engine, `${prefix}-${label}`), [name], 'no new, staged or aside container left');
    });
  }
});

t.test('pulls from a registry that wants credentials, with the registry plugin\'s pull credentials', async (t) => {
  const s = await scenario(t, 'docker-auth');
  if (!s) return;
  const { env, engine, prefix } = s;
  const auth = { username: env.authUser, password: env.authPassword };
  const repo = `${prefix}/private`;
  const v1 = await pushImage({ registry: env.authRegistry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD, auth });
  await pullImage(engine, v1.ref, auth);
  const name = `${prefix}-private`;
  await runContainer(engine, { name, image: v1.ref });
  const v2 = await pushImage({ registry: env.authRegistry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD, auth });

  // The registry plugin provides PULL_CREDENTIALS; an anonymous pull from this registry would fail.
  const { tw } = await tidewatchFor(env, prefix, {}, { repoUser: env.authUser, repoPass: env.authPassword });
  t.teardown(() => tw.close());
  const report = await tw.update();
  t.match(report.summary, { updated: 1, failed: 0 });
  t.equal((await engine.getContainer(name).inspect()).Image, v2.configDigest);
});

t.test('an AutoRemove container (gone once stopped) is recreated as it was when the new one fails', async (t) => {
  const s = await scenario(t, 'docker-autoremove');
  if (!s) return;
  const { env, engine, prefix } = s;
  const { repo, name, image: v1 } = await runningOn(s, 'app', { run: { env: ['KEEP=1'], hostConfig: { AutoRemove: true } } });
  await pushImage({ registry: env.registry, repo, marker: `${repo} v2`, cmd: ['/bin/sh', '-c', 'exit 4'] });

  const { tw } = await tidewatchFor(env, prefix, { gracePeriodMs: 3000 });
  t.teardown(() => tw.close());
  const report = await tw.update();
  t.match(report.results, [{ outcome: 'failed', rolledBack: true }]);
  const now = await engine.getContainer(name).inspect();
  t.ok(now.State.Running, 'running again under its name');
  t.equal(now.Image, v1.configDigest, 'on the old image');
  t.ok(now.Config.Env.includes('KEEP=1'));
  t.equal(now.Config.Labels['com.centurylinklabs.zodiac.original-image'], v1.ref, 'its image name is kept for the next update');
  t.same(await containerNames(engine, prefix), [name]);
  const listed = await tw.targets();
  t.equal(listed.find((x) => x.name === name)?.image, v1.ref, 'discovered under its image name');
});
