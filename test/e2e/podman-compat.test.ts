// The fork's two Podman switches through the binary on the real podman (docs/podman.md#cpu-limits-and-memory-swappiness):
// a `--cpus` limit survives an update (Podman's create refuses NanoCpus beside the quota its inspect shows),
// --cpu-copy-mode none drops every CPU limit, and --disable-memory-swappiness leaves the swappiness out.
import t from 'tap';
import { pullImage, pushImage, removeContainers, removeImages, testPrefix } from '../helpers/images.js';
import { podman, podmanCli, requirePodman } from '../helpers/podman.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { runBinary } from '../helpers/service.js';

t.test('CPU limits and memory swappiness of a Podman container through an update', async (t) => {
  const env = await requirePodman(t);
  if (!env) return;
  const engine = podman(env);
  const prefix = testPrefix('e2e-podman-compat');
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });
  // One repository each: an update pulls the new tag, which would make the other container's image current.
  const images = new Map<string, string>();
  const start = async (name: string) => {
    const repo = `${prefix}/${name}`;
    const v1 = await pushImage({ registry: env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
    await pullImage(engine, v1.ref);
    await podmanCli(env, ['run', '-d', '--name', `${prefix}-${name}`, '--network', 'none', '--cpus', '0.5', '--memory-swappiness', '60', v1.ref]);
    const v2 = await pushImage({ registry: env.registry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD });
    images.set(name, v2.configDigest);
  };
  await start('auto');
  await start('none');
  const hostConfig = async (name: string) => {
    const info = await engine.getContainer(`${prefix}-${name}`).inspect();
    return { image: info.Image, ...info.HostConfig };
  };
  const update = (name: string, extra: string[]) =>
    runBinary(['--host', env.podmanHost, '--run-once', '--stop-timeout', '5s', ...extra, `${prefix}-${name}`], {}, 120_000);

  const auto = await update('auto', ['--disable-memory-swappiness']);
  t.equal(auto.code, 0, auto.stdout.slice(-2000));
  const afterAuto = await hostConfig('auto');
  t.equal(afterAuto.image, images.get('auto'), 'replaced');
  t.equal(afterAuto.CpuQuota, 50_000, 'the --cpus limit is kept (as the quota Podman shows)');
  t.equal(afterAuto.CpuPeriod, 100_000);
  t.not(afterAuto.MemorySwappiness, 60, 'no swappiness given: Podman chose its own');

  const none = await update('none', ['--cpu-copy-mode', 'none']);
  t.equal(none.code, 0, none.stdout.slice(-2000));
  const afterNone = await hostConfig('none');
  t.equal(afterNone.image, images.get('none'), 'replaced');
  t.notOk(afterNone.CpuQuota, 'no CPU quota');
  t.notOk(afterNone.NanoCpus, 'no NanoCpus');
  t.equal(afterNone.MemorySwappiness, 60, 'swappiness copied without the switch');
});
