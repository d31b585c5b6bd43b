// Self-update: Tidewatch's own container is replaced but left running; the successor removes it when
// it starts. The test plays "our own container" with a busybox container through `selfContainerId`.
import t from 'tap';
import { pullImage, pushImage, runContainer } from '../../helpers/images.js';
import { QUICK_STOP_CMD, containerNames, tidewatchFor } from './fixtures/setup.js';
import { scenario } from '../../helpers/scenarios.js';

t.test('the own container is replaced safely and the successor removes its predecessor', async (t) => {
  const s = await scenario(t, 'docker-self');
  if (!s) return;
  const { env, engine, prefix } = s;
  const repo = `${prefix}/tidewatch`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD, labels: { tidewatch: 'true' } });
  await pullImage(engine, v1.ref);
  const name = `${prefix}-tidewatch`;
  const self = await runContainer(engine, { name, image: v1.ref });
  const v2 = await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD, labels: { tidewatch: 'true' } });

  const disabled = await tidewatchFor(env, prefix, { selfContainerId: self.id, selfUpdate: false });
  const skipped = await disabled.tw.update();
  await disabled.tw.close();
  t.match(skipped.results, [{ outcome: 'skipped', reason: /self-update is disabled/ }]);

  const { tw } = await tidewatchFor(env, prefix, { selfContainerId: self.id, gracePeriodMs: 500 });
  const report = await tw.update();
  await tw.close();
  t.match(report.results, [{ outcome: 'updated', newImageId: v2.configDigest }]);
  const successor = await engine.getContainer(name).inspect();
  t.not(successor.Id, self.id);
  t.ok(successor.State.Running);
  const predecessor = await engine.getContainer(self.id).inspect();
  t.ok(predecessor.State.Running, 'the old instance keeps running until its successor takes over');
  t.equal(predecessor.Name, `/${name}--tidewatch-old-${self.id.slice(0, 12)}-running`);

  // The successor starting: its repair stops and removes the predecessor.
  const next = await tidewatchFor(env, prefix, { selfContainerId: successor.Id });
  await next.tw.close();
  t.same(await containerNames(engine, prefix), [name], 'only the successor is left');
  t.equal((await engine.getContainer(name).inspect()).Id, successor.Id);
});
