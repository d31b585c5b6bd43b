// Image facts reused between discoveries while the engine's image event stream is open
// (docs/performance.md#image-facts-between-runs), against the private engine: a discovery after a quiet
// moment inspects none of the images the last one inspected, and hands out the same facts; an image event
// (here a pull that gives a running image a second repo digest) makes the next discovery see the change;
// facts older than the maximum age and a closed stream are inspected again.
import { setTimeout as sleep } from 'node:timers/promises';
import type Docker from 'dockerode';
import t from 'tap';
import type { Target } from '../../../core/index.js';
import { createDockerClient } from '../../../plugins/docker/engine/connect.js';
import { discoverContainers, type DiscoveryOptions } from '../../../plugins/docker/discovery.js';
import { IMAGE_FACTS_MAX_AGE_MS, ImageFactsCache } from '../../../plugins/docker/image/facts-cache.js';
import { countingEngine } from '../../helpers/counting-engine.js';
import { pullImage, pushImage, runContainer, type PushedImage } from '../../helpers/images.js';
import { scenario } from '../../helpers/scenarios.js';

const OPTIONS: DiscoveryOptions = { includeStopped: false, includeRestarting: false, useComposeDependsOn: true, inspectConcurrency: 4 };

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

t.test('a discovery reuses the image facts of the last one until the engine reports an image change', async (t) => {
  const s = await scenario(t, 'docker-image-facts');
  if (!s) return;
  const { env, engine, prefix } = s;
  const images: PushedImage[] = [];
  for (let i = 0; i < 3; i++) {
    const image = await pushImage({ registry: env.registry, repo: `${prefix}/img${i}`, marker: `facts-${i}`, labels: { 'org.example.index': String(i) } });
    await pullImage(engine, image.ref);
    await runContainer(engine, { name: `${prefix}-c${i}`, image: image.ref });
    images.push(image);
  }
  const ids = new Set<string>();
  const expected = new Map<string, Docker.ImageInspectInfo>();
  for (const image of images) {
    const info = await engine.getImage(image.ref).inspect();
    ids.add(info.Id);
    expected.set(info.Id, info);
  }

  let now = Date.now();
  const client = createDockerClient({ host: env.dockerHost });
  const cache = new ImageFactsCache(client, () => now);
  t.teardown(() => {
    cache.close();
    client.close();
  });
  const options = { ...OPTIONS, imageFacts: cache };
  const ours = (targets: readonly Target[]) => targets.filter((target) => target.name.startsWith(`${prefix}-`));
  const discover = async () => {
    const counted = countingEngine(client);
    const targets = ours((await discoverContainers(counted.client, options, undefined)).targets);
    return { targets, inspected: counted.calls.inspects.filter((id) => ids.has(id)) };
  };

  const first = await discover();
  t.equal(first.targets.length, 3);
  t.same(first.inspected.sort(), [...ids].sort(), 'the first discovery inspects each image');
  await until(() => cache.live, 'the event stream is open');

  // Other test files share the engine: each of their pulls and removals is an image event, after which a
  // discovery rightly inspects again. A few tries find a quiet moment.
  let reused: Awaited<ReturnType<typeof discover>> | undefined;
  for (let attempt = 0; attempt < 10 && !reused; attempt++) {
    await discover();
    const next = await discover();
    if (next.inspected.length === 0) reused = next;
  }
  t.ok(reused, 'a discovery after one with no image event in between inspects none of these images');
  for (const target of reused?.targets ?? []) {
    const info = expected.get(target.imageId);
    t.same(target.repoDigests, info?.RepoDigests, `${target.name}: the repo digests an inspect shows`);
    t.same(target.imageLabels, info?.Config.Labels, `${target.name}: the image labels an inspect shows`);
  }

  // The first image pulled under a second repository: the engine adds a repo digest to the same image id
  // and reports the pull. The cache drops what it held, and the next discovery shows the new digest.
  const first0 = images[0] as PushedImage;
  const twin = await pushImage({ registry: env.registry, repo: `${prefix}/twin`, marker: 'facts-0', labels: { 'org.example.index': '0' } });
  t.equal(twin.configDigest, first0.configDigest, 'the same image under another repository');
  // Another file's image event since the last discovery empties the cache too: a discovery fills it again.
  for (let attempt = 0; attempt < 10 && cache.size === 0; attempt++) await discover();
  t.ok(cache.size > 0, 'the cache holds facts before the pull');
  await pullImage(engine, twin.ref);
  await until(() => cache.size === 0, 'the pull event reaches the cache');
  const changed = await discover();
  const twinned = changed.targets.find((target) => target.name === `${prefix}-c0`);
  t.ok(twinned?.repoDigests.some((digest) => digest.startsWith(`${env.registry}/${prefix}/twin@`)), 'the new repo digest is seen at once');
  t.ok(changed.inspected.includes(first0.configDigest), 'the changed image is inspected again');

  // Facts reused for longer than the maximum age are inspected again, events or not.
  let aged: Awaited<ReturnType<typeof discover>> | undefined;
  for (let attempt = 0; attempt < 10 && !aged; attempt++) {
    await discover();
    if ((await discover()).inspected.length > 0) continue; // an event came between: not a quiet moment
    now += IMAGE_FACTS_MAX_AGE_MS + 1;
    aged = await discover();
  }
  t.same(aged?.inspected.sort(), [...ids].sort(), 'every image inspected again once its facts are too old');

  // Without the stream nothing is reused.
  cache.close();
  t.notOk(cache.live);
  const closed = await discover();
  t.same(closed.inspected.sort(), [...ids].sort(), 'every image inspected once the stream is closed');
  const again = await discover();
  t.same(again.inspected.sort(), [...ids].sort(), 'and again: a closed cache never reopens');
});
