// Discovery and selection against the private engine, through a real Tidewatch.
import t from 'tap';
import { createTidewatch, type Target } from '../../../core/index.js';
import { dockerPlugin, type DockerPluginOptions } from '../../../plugins/docker/index.js';
import { pullImage, pushImage, runContainer } from '../../helpers/images.js';
import { scenario } from '../../helpers/scenarios.js';

t.test('discover + select through createTidewatch', async (t) => {
  const s = await scenario(t, 'docker-discovery');
  if (!s) return;
  const { env, engine, prefix } = s;

  const pushed = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'discovery', labels: { 'org.example.flavour': 'plain' } });
  await pullImage(engine, pushed.ref);
  const untagged = `${env.registry}/${prefix}/app`;
  const plain = await runContainer(engine, { name: `${prefix}-plain`, image: untagged });
  await runContainer(engine, { name: `${prefix}-on`, image: pushed.ref, labels: { 'tidewatch.enable': 'true', 'tidewatch.depends-on': `${prefix}-plain` } });
  await runContainer(engine, { name: `${prefix}-off`, image: pushed.ref, labels: { 'com.centurylinklabs.watchtower.enable': 'false' } });
  const blue = await runContainer(engine, { name: `${prefix}-blue`, image: pushed.ref, labels: { 'com.centurylinklabs.watchtower.scope': 'blue' } });
  await runContainer(engine, { name: `${prefix}-stopped`, image: pushed.ref, start: false });

  const targetsWith = async (options: DockerPluginOptions): Promise<Target[]> => {
    const tw = await createTidewatch({
      plugins: [{ plugin: dockerPlugin, options: { host: env.dockerHost, names: [`${prefix}-.*`], ...options } }],
    });
    try {
      return (await tw.targets()).sort((a, b) => a.name.localeCompare(b.name));
    } finally {
      await tw.close();
    }
  };
  const names = (targets: Target[]) => targets.map((x) => x.name.slice(prefix.length + 1));

  const defaults = await targetsWith({});
  t.same(names(defaults), ['on', 'plain'], 'running, unscoped, not disabled');
  const [on, plainTarget] = defaults as [Target, Target];
  t.match(plainTarget, {
    runtime: 'docker',
    id: plain.id,
    name: `${prefix}-plain`,
    image: `${untagged}:latest`,
    imageId: pushed.configDigest,
    state: 'running',
    isSelf: false,
    dependsOn: [],
  });
  t.same(plainTarget.repoDigests, [`${env.registry}/${prefix}/app@${pushed.digest}`]);
  t.same(plainTarget.imageLabels, { 'org.example.flavour': 'plain' });
  t.same(on.dependsOn, [`${prefix}-plain`]);
  t.equal(on.labels['tidewatch.enable'], 'true');

  t.same(names(await targetsWith({ labelEnable: true })), ['on']);
  t.same(names(await targetsWith({ scope: 'blue' })), ['blue']);
  t.same(names(await targetsWith({ includeStopped: true })), ['on', 'plain', 'stopped']);
  t.same(names(await targetsWith({ disableContainers: [`${prefix}-p.*`] })), ['on']);

  // Our own container's scope label becomes the scope when none is given.
  const asSelf = await targetsWith({ selfContainerId: blue.id });
  t.same(names(asSelf), ['blue']);
  t.equal(asSelf[0]?.isSelf, true);

  // Always a names filter: an instance repairs leftovers of what it selects, and other test files share the engine.
  const tw = await createTidewatch({ plugins: [{ plugin: dockerPlugin, options: { host: env.dockerHost, names: [`${prefix}-.*`] } }] });
  await t.resolves(tw.health.ready(), 'the engine ping answers');
  await tw.close();
  const dead = await createTidewatch({ plugins: [{ plugin: dockerPlugin, options: { host: 'unix:///nonexistent/docker.sock' } }] });
  await t.rejects(dead.health.ready(), /docker:/, 'readiness names the docker check');
  await dead.close();
});
