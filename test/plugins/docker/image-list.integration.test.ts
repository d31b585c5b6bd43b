// Discovery with many distinct images reads them from one image list instead of an inspect each
// (docs/performance.md#the-check-pipeline), against the private engine: the targets carry exactly what the
// per-image inspects say, and an image the list does not show is still inspected on its own. Fewer
// distinct images are inspected one by one: every other discovery test runs that way.
import type Docker from 'dockerode';
import t from 'tap';
import { mapBounded, type Target } from '../../../core/index.js';
import { createDockerClient } from '../../../plugins/docker/engine/connect.js';
import { IMAGE_LIST_FROM, discoverContainers, type DiscoveryOptions } from '../../../plugins/docker/discovery.js';
import { countingEngine as counting } from '../../helpers/counting-engine.js';
import { pullImage, pushImage, runContainer } from '../../helpers/images.js';
import { scenario } from '../../helpers/scenarios.js';

// A fleet of IMAGE_LIST_FROM images would make this test slow: the threshold is lowered for it.
const LIST_FROM = 16;
const OPTIONS: DiscoveryOptions = { includeStopped: false, includeRestarting: false, useComposeDependsOn: true, inspectConcurrency: 4, imageListFrom: LIST_FROM };

t.test('one image list answers for many distinct images, with the facts an inspect gives', async (t) => {
  const s = await scenario(t, 'docker-image-list');
  if (!s) return;
  const { env, engine, prefix } = s;
  const count = LIST_FROM;
  const images = await mapBounded(Array.from({ length: count }, (_, i) => i), 4, async (i) => {
    const image = await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `list-${i}`, labels: { 'org.example.index': String(i) } });
    await pullImage(engine, image.ref);
    return image;
  });
  await mapBounded(images, 4, (image, i) => runContainer(engine, { name: `${prefix}-c${i}`, image: image.ref }));
  // A second container of the first image: still one image fact, shared.
  await runContainer(engine, { name: `${prefix}-twin`, image: (images[0] as { ref: string }).ref });

  const client = createDockerClient({ host: env.dockerHost });
  t.teardown(() => client.close());
  const ours = (targets: readonly Target[]) => targets.filter((target) => target.name.startsWith(`${prefix}-`));
  const expected = new Map<string, Docker.ImageInspectInfo>();
  for (const image of images) {
    const info = await engine.getImage(image.ref).inspect();
    expected.set(info.Id, info);
  }

  const listed = counting(client);
  const targets = ours((await discoverContainers(listed.client, OPTIONS, undefined)).targets);
  t.equal(targets.length, count + 1, 'every container is a target');
  t.equal(listed.calls.lists, 1, 'one image list');
  t.same(listed.calls.order, ['containers', 'images'], 'asked for once the container list showed many images');
  // Other test files share the engine and may pull an image between the list and discovery's use of it.
  t.same(listed.calls.inspects.filter((id) => expected.has(id)), [], 'none of these images inspected on its own');
  for (const target of targets) {
    const info = expected.get(target.imageId);
    t.ok(info, `${target.name} runs one of the pushed images`);
    t.same(target.repoDigests, info?.RepoDigests, `${target.name}: the repo digests an inspect shows`);
    t.same(target.imageLabels, info?.Config.Labels, `${target.name}: the image labels an inspect shows`);
  }

  // An image pulled after the list was read (here: hidden from its answer) is inspected on its own.
  const hiddenId = (await engine.getImage((images[1] as { ref: string }).ref).inspect()).Id;
  const partial = counting(client, hiddenId);
  const again = ours((await discoverContainers(partial.client, OPTIONS, undefined)).targets);
  t.same(partial.calls.inspects.filter((id) => expected.has(id)), [hiddenId], 'of these images, only the one the list did not show');
  const hiddenTarget = again.find((target) => target.imageId === hiddenId);
  t.same(hiddenTarget?.repoDigests, expected.get(hiddenId)?.RepoDigests);
  t.same(hiddenTarget?.imageLabels, { 'org.example.index': '1' });

  // The engine's last discovery saw many images: the image list is asked for beside the container list.
  const ahead = counting(client);
  const early = ours((await discoverContainers(ahead.client, { ...OPTIONS, imagesLastTime: LIST_FROM }, undefined)).targets);
  t.same(ahead.calls.order, ['images', 'containers'], 'the image list first, not after the container list');
  t.equal(ahead.calls.lists, 1);
  t.same(early.map((target) => [target.name, target.repoDigests, target.imageLabels]), targets.map((target) => [target.name, target.repoDigests, target.imageLabels]));

  // At the default threshold these few images are inspected one by one, and no list is read.
  const inspected = counting(client);
  const { imageListFrom: _lowered, ...defaults } = OPTIONS;
  const one = ours((await discoverContainers(inspected.client, defaults, undefined)).targets);
  t.ok(IMAGE_LIST_FROM > count + 1, 'the default threshold is above this fleet');
  if (inspected.calls.lists === 0) t.ok(inspected.calls.inspects.filter((id) => expected.has(id)).length === count, 'each of these images inspected');
  else t.ok(inspected.calls.lists === 1, 'the engine holds many images from other tests: one list then');
  t.same(one.map((target) => [target.name, target.repoDigests, target.imageLabels]), targets.map((target) => [target.name, target.repoDigests, target.imageLabels]));
});
