// Self-update with the real image (docs/image.md): Tidewatch runs from an image in the local registry;
// a newer Tidewatch image is pushed under the same tag; the running Tidewatch replaces its own
// container, the successor removes its predecessor, and exactly one Tidewatch container is left,
// running the new image under the original name. With the HTTP API on a published port, it does not
// replace itself, and says so.
import t from 'tap';
import { docker, requireEnv, waitFor } from '../helpers/env.js';
import { removeContainers, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/loopback-server.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';

/** Two Tidewatch images (the second a newer build), a repository for them, and its cleanup. */
async function selfUpdateSetup(t: { plan(n: number, comment?: string): void; teardown(fn: () => unknown): void }, label: string) {
  const env = await requireEnv(t);
  if (!env) return undefined;
  const engine = docker(env);
  const prefix = testPrefix(label);
  const ref = `${env.registry}/${prefix}/tidewatch:latest`;
  const current = await tidewatchImage(env, 'tidewatch:test');
  const next = await tidewatchImage(env, 'tidewatch:test-next', 'next');
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await dockerCli(env, ['rmi', '-f', ref]).catch(() => undefined);
  });
  /** Tags `image` as the repository's latest and pushes it. */
  const publish = async (image: string) => {
    await dockerCli(env, ['tag', image, ref]);
    await dockerCli(env, ['push', '-q', ref]);
  };
  return { env, engine, prefix, self: `${prefix}-tidewatch`, ref, current, next, publish };
}

t.test('the running image replaces itself with a newer one', { timeout: 900_000 }, async (t) => {
  const setup = await selfUpdateSetup(t, 'selfupd');
  if (!setup) return;
  const { env, engine, prefix, self, ref, current, next, publish } = setup;
  const idOf = async (image: string): Promise<string> => (await engine.getImage(image).inspect()).Id;
  t.not(await idOf(current), await idOf(next), 'two different Tidewatch images');

  await publish(current);
  // Its own container only (the engine is shared with other tests), checked every 2 s.
  await dockerCli(env, [
    'run', '-d', '--name', self, '--network', 'host', '-v', `${env.dockerSocket}:/var/run/docker.sock`,
    ref, '--interval', '2s', self,
  ]);
  const ours = async () =>
    (await engine.listContainers({ all: true, filters: { label: ['tidewatch=true'] } })).filter((c) => c.Names.some((n) => n.includes(prefix)));
  t.equal((await ours()).length, 1);
  const firstId = (await ours())[0]?.Id;

  // A newer Tidewatch under the same tag.
  await publish(next);
  const nextId = await idOf(next);
  try {
    await waitFor(async () => {
      const list = await ours();
      return list.length === 1 && list[0]?.Id !== firstId && list[0]?.ImageID === nextId && list[0]?.State === 'running' ? true : undefined;
    }, 120_000, 500);
  } catch (err) {
    t.comment(await dockerCli(env, ['ps', '-a', '--filter', 'label=tidewatch=true']).catch(() => ''));
    for (const c of await ours()) t.comment(await dockerCli(env, ['logs', '--tail', '30', c.Id]).catch(() => ''));
    throw err;
  }
  const [left] = await ours();
  t.same(left?.Names, [`/${self}`], 'exactly one Tidewatch container, under the original name, on the new image');
  const logs = await dockerCli(env, ['logs', self]);
  t.match(logs, /predecessor|self-update/i, 'the successor says what it did');
});

t.test('with the HTTP API on a published port it leaves itself alone and logs why', { timeout: 900_000 }, async (t) => {
  const setup = await selfUpdateSetup(t, 'selfport');
  if (!setup) return;
  const { env, engine, prefix, self, ref, current, next, publish } = setup;
  await publish(current);
  // The private engine has no bridge: on the host network Docker keeps the binding in the container's
  // configuration (which is what Tidewatch reads) without opening the port.
  const port = await freePort();
  await dockerCli(env, [
    'run', '-d', '--name', self, '--network', 'host', '-p', `127.0.0.1:${port}:${port}`,
    '-v', `${env.dockerSocket}:/var/run/docker.sock`,
    ref, '--interval', '2s', '--http-api-endpoints', 'health', '--http-api-host', '127.0.0.1', '--http-api-port', String(port), self,
  ]);
  const firstId = (await engine.getContainer(self).inspect()).Id;
  await publish(next);

  const logs = await waitFor(async () => {
    const text = await dockerCli(env, ['logs', self]);
    return /not updating Tidewatch's own container: self-update is disabled: published ports/.test(text) ? text : undefined;
  }, 60_000, 500);
  t.match(logs, /published ports/, 'the log line names the reason');
  const left = await engine.listContainers({ all: true, filters: { label: ['tidewatch=true'] } });
  const ours = left.filter((c) => c.Names.some((n) => n.includes(prefix)));
  t.same(ours.map((c) => [c.Id, c.State]), [[firstId, 'running']], 'the same container keeps running, nothing staged beside it');
});
