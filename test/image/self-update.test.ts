// Self-update with the real image (docs/image.md): Tidewatch runs from an image in the local registry;
// a newer Tidewatch image is pushed under the same tag; the running Tidewatch replaces its own
// container, the successor removes its predecessor, and exactly one Tidewatch container is left,
// running the new image under the original name. On each of the four engine set-ups of docs/engines.md
// (Docker 20.10, 26.1, 28.5 with the containerd image store on and off), at once: the two images are built
// once, on the main engine, and reach the other engines through the local registry. With the HTTP API on a
// published port, it does not replace itself, and says so.
import type Docker from 'dockerode';
import t, { type Test } from 'tap';
import { docker, requireEnv, waitFor, type TestEnv } from '../helpers/env.js';
import { pullImage, removeContainers, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/loopback-server.js';
import { ENGINE_SETUPS } from '../helpers/scenarios.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';

/** Tags `image` (built on the main engine) as `ref` and pushes it to the local registry. */
async function publish(env: TestEnv, image: string, ref: string): Promise<void> {
  await dockerCli(env, ['tag', image, ref]);
  await dockerCli(env, ['push', '-q', ref]);
}

/**
 * The two Tidewatch images: the second a newer build (another revision label). One after the other, so that the
 * second reuses the first's build stage from the engine's cache.
 */
async function tidewatchImages(env: TestEnv): Promise<{ current: string; next: string }> {
  const current = await tidewatchImage(env, 'tidewatch:test');
  return { current, next: await tidewatchImage(env, 'tidewatch:test-next', 'next') };
}

/** Everything an engine's log says about a container, stdout and stderr (the stream framing is harmless to a regexp). */
async function logsOf(engine: Docker, id: string, tail?: number): Promise<string> {
  const buf = (await engine.getContainer(id).logs({ stdout: true, stderr: true, ...(tail ? { tail } : {}) })) as unknown as Buffer;
  return buf.toString('utf8');
}

t.test('on every engine set-up the running image replaces itself with a newer one', { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const { current, next } = await tidewatchImages(env);
  const main = docker(env);
  t.not((await main.getImage(current).inspect()).Id, (await main.getImage(next).inspect()).Id, 'two different Tidewatch images');

  // The four engines at once: each waits mostly on its Tidewatch's 2 s interval and the successor's start.
  t.jobs = ENGINE_SETUPS.length;
  ENGINE_SETUPS.forEach((setup, index) => {
    t.test(setup.label, { buffered: true }, async (t: Test) => {
      const s = await setup.scenario(t, `selfupd${index}`);
      if (!s) return;
      const { engine, prefix } = s;
      // A repository per engine: each pushes the newer image when its own Tidewatch runs.
      const ref = `${env.registry}/${prefix}/tidewatch:latest`;
      const self = `${prefix}-tidewatch`;
      t.teardown(() => dockerCli(env, ['rmi', '-f', ref]).catch(() => undefined));
      await publish(env, current, ref);
      await pullImage(engine, ref);
      // Its own container only (the engines are shared with other tests), checked every 2 s; the engine's socket
      // mounted where the image looks for it.
      const first = await engine.createContainer({
        name: self,
        Image: ref,
        Cmd: ['--interval', '2s', self],
        HostConfig: { NetworkMode: 'host', Binds: [`${s.socket}:/var/run/docker.sock`] },
      });
      await first.start();
      const firstImage = (await first.inspect()).Image;
      const ours = async () =>
        (await engine.listContainers({ all: true, filters: { label: ['tidewatch=true'] } })).filter((c) => c.Names.some((n) => n.includes(prefix)));
      t.same((await ours()).map((c) => c.Id), [first.id], 'one Tidewatch container, on the first image');

      await publish(env, next, ref);
      // The registry digest the newer build was pushed as (the main engine recorded it at the push).
      const nextDigest = (await dockerCli(env, ['image', 'inspect', '--format', '{{json .RepoDigests}}', ref])).trim();
      let left: Docker.ContainerInfo | undefined;
      try {
        left = await waitFor(async () => {
          const list = await ours();
          const [only] = list;
          return list.length === 1 && only?.Id !== first.id && only?.ImageID !== firstImage && only?.State === 'running' ? only : undefined;
        }, 180_000, 500);
      } catch (err) {
        for (const c of await ours()) t.comment(`${c.Names.join(',')} ${c.State}\n${await logsOf(engine, c.Id, 30).catch(() => '')}`);
        throw err;
      }
      t.same(left.Names, [`/${self}`], 'exactly one Tidewatch container, under the original name');
      // The image ID is the config's digest in the classic store and the manifest's in the containerd store: read
      // the label the newer build carries instead.
      // Docker 28.5's containerd store may answer that inspect without the config's labels (seen on a machine whose
      // store had run the suite before): then the manifest digest the container runs must be the newer build's.
      const image = await engine.getImage(left.ImageID).inspect();
      const revision = image.Config?.Labels?.['org.opencontainers.image.revision'];
      const digest = left.ImageID.startsWith('sha256:') ? left.ImageID : '';
      t.ok(revision === 'next' || (revision === undefined && digest !== '' && nextDigest.includes(`@${digest}`)), `on the newer image (revision ${revision}, ${digest} in ${nextDigest})`);
      // The successor logs its repair once the whole repair is done, which is after the predecessor is gone.
      const said = await waitFor(async () => ((await logsOf(engine, left.Id)).includes(`"predecessors":["${self}"]`) ? true : undefined), 30_000, 250).catch(() => false);
      t.ok(said, 'the successor says it removed its predecessor');
      // The successor's own runs find it up to date with a known digest: no error, no update loop (in the containerd
      // store its running digest is the pulled manifest's).
      const settled = (line: string) =>
        ['"msg":"update run completed"', '"scanned":1', '"updated":0', '"failed":0'].every((part) => line.includes(part));
      await waitFor(async () => (await logsOf(engine, left.Id)).split('\n').some(settled), 60_000, 500);
      t.same((await ours()).map((c) => [c.Id, c.State]), [[left.Id, 'running']], 'its next run leaves it alone');
    });
  });
});

t.test('with the HTTP API on a published port it leaves itself alone and logs why', { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('selfport');
  const ref = `${env.registry}/${prefix}/tidewatch:latest`;
  const self = `${prefix}-tidewatch`;
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await dockerCli(env, ['rmi', '-f', ref]).catch(() => undefined);
  });
  const { current, next } = await tidewatchImages(env);
  await publish(env, current, ref);
  // The private engine has no bridge: on the host network Docker keeps the binding in the container's
  // configuration (which is what Tidewatch reads) without opening the port.
  const port = await freePort();
  await dockerCli(env, [
    'run', '-d', '--name', self, '--network', 'host', '-p', `127.0.0.1:${port}:${port}`,
    '-v', `${env.dockerSocket}:/var/run/docker.sock`,
    ref, '--interval', '2s', '--http-api-endpoints', 'health', '--http-api-host', '127.0.0.1', '--http-api-port', String(port), self,
  ]);
  const firstId = (await engine.getContainer(self).inspect()).Id;
  await publish(env, next, ref);

  const logs = await waitFor(async () => {
    const text = await dockerCli(env, ['logs', self]);
    return /not updating Tidewatch's own container: self-update is disabled: published ports/.test(text) ? text : undefined;
  }, 60_000, 500);
  t.match(logs, /published ports/, 'the log line names the reason');
  const left = await engine.listContainers({ all: true, filters: { label: ['tidewatch=true'] } });
  const ours = left.filter((c) => c.Names.some((n) => n.includes(prefix)));
  t.same(ours.map((c) => [c.Id, c.State]), [[firstId, 'running']], 'the same container keeps running, nothing staged beside it');
});
