// Pull by digest against the real engine and registry (docs/plugins.md#the-staleness-protocol): the
// runtime pulls the digest the check resolved, never the tag, tags it with the chosen tag, and runs the
// container on that name; a digest the engine cannot get fails before anything is stopped.
import t from 'tap';
import { STAGES, createTidewatch, definePlugin, type Staleness, type TidewatchEvent } from '../../../core/index.js';
import { dockerPlugin } from '../../../plugins/docker/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import type { TestEnv } from '../../helpers/env.js';
import { pullImage, pushImage, runContainer } from '../../helpers/images.js';
import { scenario } from '../../helpers/scenarios.js';
import { QUICK_STOP_CMD, containerNames } from './fixtures/setup.js';
import { asStaleness } from '../../helpers/staleness.js';

/** The real Docker and registry plugins, with the check's answer for every target fixed by the test. */
async function withAnswer(env: TestEnv, prefix: string, answer: Staleness) {
  const events: TidewatchEvent[] = [];
  const fixed = definePlugin({
    name: 'fixed-answer',
    apply(core) {
      core.hooks.checkStaleness.tapPromise({ name: 'fixed-answer', stage: STAGES.checkStaleness.local }, async () => answer);
    },
  });
  const tw = await createTidewatch({
    plugins: [
      { plugin: dockerPlugin, options: { host: env.dockerHost, names: [`${prefix}-.*`], stopTimeoutMs: 5000, gracePeriodMs: 1500 } },
      { plugin: registryPlugin, options: { tlsSkip: true } },
      { plugin: fixed, options: {} },
    ],
  });
  tw.hooks.event.tap('test', (event) => void events.push(event));
  return { tw, events };
}

t.test('a new tag: pulled by its digest, tagged, and the container recreated on repo:newtag', async (t) => {
  const s = await scenario(t, 'pin-tag');
  if (!s) return;
  const { env, engine, prefix } = s;
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, tag: '1.0.0', marker: `${repo} v1`, cmd: QUICK_STOP_CMD, labels: { team: 'ops' } });
  await pullImage(engine, v1.ref);
  const name = `${prefix}-app`;
  await runContainer(engine, { name, image: v1.ref, env: ['FOO=bar'] });
  const v2 = await pushImage({ registry: env.registry, repo, tag: '1.1.0', marker: `${repo} v2`, cmd: QUICK_STOP_CMD });
  // The tag moves after the check resolved its digest: what runs must be the digest the check saw.
  await pushImage({ registry: env.registry, repo, tag: '1.1.0', marker: `${repo} v3`, cmd: QUICK_STOP_CMD });

  const { tw, events } = await withAnswer(env, prefix, asStaleness({ source: 'registry', stale: true, latestDigest: v2.digest, latestTag: '1.1.0', currentTag: '1.0.0', updateKind: 'minor' }));
  t.teardown(() => tw.close());
  const report = await tw.update();
  t.match(report.summary, { updated: 1, failed: 0 });
  t.match(report.results[0], { outcome: 'updated', newImage: `${env.registry}/${repo}:1.1.0` });

  const now = await engine.getContainer(name).inspect();
  t.equal(now.Config.Image, `${env.registry}/${repo}:1.1.0`, 'created on the new tag');
  t.equal(now.Image, v2.configDigest, 'running the digest the check resolved, not what the tag names now');
  t.ok(now.State.Running);
  t.ok(now.Config.Env.includes('FOO=bar'), 'everything else as it was');
  const image = await engine.getImage(v2.configDigest).inspect();
  t.ok(image.RepoDigests.includes(`${env.registry}/${repo}@${v2.digest}`), 'the engine recorded the digest');
  t.ok(image.RepoTags.includes(`${env.registry}/${repo}:1.1.0`), 'and the image carries the new tag');
  t.equal((await engine.getImage(v1.ref).inspect()).Id, v1.configDigest, 'the old tag still names the old image');
  t.same(await containerNames(engine, prefix), [name]);
  t.ok(events.some((e) => e.type === 'update_completed'));
});

t.test('a digest the engine cannot pull fails the target before anything is stopped', async (t) => {
  const s = await scenario(t, 'pin-missing');
  if (!s) return;
  const { env, engine, prefix } = s;
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, tag: '2.0', marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
  await pullImage(engine, v1.ref);
  const name = `${prefix}-app`;
  const old = await runContainer(engine, { name, image: v1.ref });
  const other = await pushImage({ registry: env.registry, repo: `${prefix}/other`, tag: '2.1', marker: `${prefix} elsewhere`, cmd: QUICK_STOP_CMD });

  const { tw } = await withAnswer(env, prefix, { source: 'registry', stale: true, latestDigest: other.digest, latestTag: '2.1' });
  t.teardown(() => tw.close());
  const report = await tw.update();
  t.match(report.results[0], { outcome: 'failed', error: /pull .*@sha256:/ });
  const now = await engine.getContainer(name).inspect();
  t.equal(now.Id, old.id, 'the same container');
  t.ok(now.State.Running, 'still running');
  t.equal(now.Config.Image, v1.ref, 'on the old reference');
});

t.test('a new tag whose image exits at start is rolled back to the old reference', async (t) => {
  const s = await scenario(t, 'pin-rollback');
  if (!s) return;
  const { env, engine, prefix } = s;
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, tag: '3.0.0', marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
  await pullImage(engine, v1.ref);
  const name = `${prefix}-app`;
  const old = await runContainer(engine, { name, image: v1.ref, restartPolicy: 'unless-stopped' });
  const v2 = await pushImage({ registry: env.registry, repo, tag: '3.0.1', marker: `${repo} v2`, cmd: ['/bin/sh', '-c', 'exit 3'] });

  const { tw } = await withAnswer(env, prefix, { source: 'registry', stale: true, latestDigest: v2.digest, latestTag: '3.0.1' });
  t.teardown(() => tw.close());
  const report = await tw.update();
  t.match(report.results[0], { outcome: 'failed', rolledBack: true });
  const now = await engine.getContainer(name).inspect();
  t.equal(now.Id, old.id, 'the old container is back');
  t.ok(now.State.Running, 'running');
  t.equal(now.Config.Image, v1.ref, 'on the old reference');
  t.equal(now.Image, v1.configDigest);
  t.same(await containerNames(engine, prefix), [name], 'nothing staged or aside left');
});

t.test('a reference pinned to a digest stays pinned, on the new tag and digest', async (t) => {
  const s = await scenario(t, 'pin-pinned');
  if (!s) return;
  const { env, engine, prefix } = s;
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, tag: '5.0.0', marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
  await pullImage(engine, v1.digestRef);
  const name = `${prefix}-app`;
  await runContainer(engine, { name, image: `${v1.ref}@${v1.digest}` });
  const v2 = await pushImage({ registry: env.registry, repo, tag: '5.1.0', marker: `${repo} v2`, cmd: QUICK_STOP_CMD });

  const { tw } = await withAnswer(env, prefix, { source: 'registry', stale: true, latestDigest: v2.digest, latestTag: '5.1.0' });
  t.teardown(() => tw.close());
  const report = await tw.update();
  t.match(report.results[0], { outcome: 'updated', newImage: `${v2.ref}@${v2.digest}` }, `updated (error: ${report.results[0]?.error ?? 'none'})`);
  const now = await engine.getContainer(name).inspect();
  t.equal(now.Config.Image, `${v2.ref}@${v2.digest}`, 'repo:tag@sha256:old became repo:newtag@sha256:new');
  t.equal(now.Image, v2.configDigest);
  t.ok(now.State.Running);
});
