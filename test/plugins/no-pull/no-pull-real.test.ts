// no-pull against the real engine: images pulled through a counting proxy in front of the real
// registry; once no-pull decides, the proxy sees no request at all.
import t from 'tap';
import { createTidewatch, type Target, type TidewatchPlugin } from '../../../core/index.js';
import { LOCAL_IMAGES } from '../../../contracts/index.js';
import { noPullPlugin } from '../../../plugins/no-pull/index.js';
import { registryPlugin } from '../../../plugins/registry/index.js';
import { docker, requireEnv } from '../../helpers/env.js';
import { pullImage, pushImage, removeImages, testPrefix } from '../../helpers/images.js';
import { emptyConfigDir } from '../registry/harness.js';
import { RegistryProxy } from '../registry/registry-proxy.js';

const prefix = testPrefix('no-pull');

t.test('no-pull compares with the local tag and contacts nothing', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const proxy = await new RegistryProxy({ upstream: env.registry }).start();
  t.teardown(() => proxy.close());
  t.teardown(() => removeImages(engine, prefix));
  const repo = `${prefix}/app`;
  const ref = `${proxy.host}/${repo}:latest`;

  await pushImage({ registry: env.registry, repo, marker: 'A' });
  await pullImage(engine, ref);
  const a = await engine.getImage(ref).inspect();
  const running: Target = {
    runtime: 'docker',
    id: 'c1',
    name: `${prefix}-c1`,
    image: ref,
    imageId: a.Id,
    repoDigests: a.RepoDigests,
    labels: {},
    imageLabels: {},
    state: 'running',
    dependsOn: [],
    isSelf: false,
  };
  const localImages: TidewatchPlugin<object> = {
    name: 'test-runtime',
    apply(core) {
      core.hooks.discover.tapPromise('test-runtime', async (found) => [...found, running]);
      core.services.provide(LOCAL_IMAGES, {
        async inspectImage(reference) {
          try {
            return { id: (await engine.getImage(reference).inspect()).Id };
          } catch (err) {
            if ((err as { statusCode?: number }).statusCode === 404) return undefined;
            throw err;
          }
        },
      });
    },
  };
  const withNoPull = await createTidewatch({
    plugins: [
      localImages,
      { plugin: noPullPlugin, options: { noPull: true } },
      { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } },
    ] as TidewatchPlugin<object>[],
  });
  t.teardown(() => withNoPull.close());
  const withoutNoPull = await createTidewatch({
    plugins: [localImages, { plugin: registryPlugin, options: { dockerConfigDir: emptyConfigDir() } }] as TidewatchPlugin<object>[],
  });
  t.teardown(() => withoutNoPull.close());

  let mark = proxy.count();
  let s = (await withNoPull.check()).results[0]?.staleness;
  t.same(s, { source: 'registry', stale: false, latestImageId: a.Id });
  t.equal(proxy.count(), mark, 'no request reached the registry');

  const b = await pushImage({ registry: env.registry, repo, marker: 'B' });
  s = (await withNoPull.check()).results[0]?.staleness;
  t.equal(s?.stale, false, 'a newer image on the registry is not seen without pulling');
  t.equal(proxy.count(), mark, 'still nothing reached the registry');
  const remote = (await withoutNoPull.check()).results[0]?.staleness;
  t.equal(remote?.stale, true, 'the registry source does see it');
  t.equal(remote?.latestDigest, b.digest);
  t.ok(proxy.count() > mark, 'and that took registry requests');

  await pullImage(engine, ref);
  const pulled = await engine.getImage(ref).inspect();
  mark = proxy.count();
  s = (await withNoPull.check()).results[0]?.staleness;
  t.same(s, { source: 'registry', stale: true, latestImageId: pulled.Id }, 'the local tag moved: stale');
  t.equal(proxy.count(), mark, 'no request reached the registry');
});
