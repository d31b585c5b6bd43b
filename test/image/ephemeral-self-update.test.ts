// Ephemeral self-update with the real image on the real engine (docs/image.md#ephemeral-self-update):
// Tidewatch runs from the local registry with a published port and --ephemeral-self-update. A broken
// release first (its service exits at once, its helper mode works): the helper puts the old container
// back, running, under its name, and (with a data directory, in the container's own layer, which the put-back
// container keeps) the runs after it skip that release instead of handing it off again. Then a good release: the replacement runs the new image under the
// original name with the same port binding, and neither the old container nor the helper is left.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { docker, requireEnv, waitFor } from '../helpers/env.js';
import { removeContainers, testPrefix } from '../helpers/images.js';
import { freePort } from '../helpers/loopback-server.js';
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js';

const HELPER_LABEL = 'com.centurylinklabs.watchtower.ephemeral-orchestrator=true';

/** `next`, except that only the helper mode works: the service itself exits 3, as a broken release would. */
async function brokenImage(env: Parameters<typeof dockerCli>[0], next: string, tag: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tw-broken-'));
  try {
    const run = `case " $* " in *' --self-update-orchestrator '*) exec node /app/bin/tidewatch.js "$@";; esac; echo broken release >&2; exit 3`;
    await writeFile(join(dir, 'Dockerfile'), `FROM ${next}\nENTRYPOINT ${JSON.stringify(['/bin/sh', '-c', run, 'sh'])}\n`);
    await dockerCli(env, ['build', '-q', '-t', tag, dir]);
    return tag;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

t.test('ephemeral self-update with a published port: a broken release rolls back, a good one replaces', { timeout: 900_000 }, async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const engine = docker(env);
  const prefix = testPrefix('ephemeral');
  const self = `${prefix}-tidewatch`;
  const ref = `${env.registry}/${prefix}/tidewatch:latest`;
  const current = await tidewatchImage(env, 'tidewatch:test');
  const next = await tidewatchImage(env, 'tidewatch:test-next', 'next');
  const broken = await brokenImage(env, next, 'tidewatch:test-broken');
  const helpers = async () => engine.listContainers({ all: true, filters: { label: [HELPER_LABEL] } });
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    for (const helper of await helpers()) await engine.getContainer(helper.Id).remove({ force: true }).catch(() => undefined);
    await dockerCli(env, ['rmi', '-f', ref, broken]).catch(() => undefined);
  });
  const publish = async (image: string) => {
    await dockerCli(env, ['tag', image, ref]);
    await dockerCli(env, ['push', '-q', ref]);
  };
  const imageId = async (image: string) => (await engine.getImage(image).inspect()).Id;
  const diagnose = async () => {
    t.comment(await dockerCli(env, ['ps', '-a']).catch(() => ''));
    t.comment(await dockerCli(env, ['logs', '--tail', '40', self]).catch(() => ''));
  };

  await publish(current);
  // On the host network (the private engine has no bridge) the binding stays in the container's
  // configuration, which is what a replacement must carry; the API itself listens on the port.
  const port = await freePort();
  await dockerCli(env, [
    'run', '-d', '--name', self, '--network', 'host', '-p', `127.0.0.1:${port}:${port}`,
    '-v', `${env.dockerSocket}:/var/run/docker.sock`,
    ref, '--interval', '3s', '--ephemeral-self-update', '--data-dir', '/tmp/tidewatch-data',
    '--http-api-endpoints', 'health', '--http-api-host', '127.0.0.1', '--http-api-port', String(port), self,
  ]);
  const first = await engine.getContainer(self).inspect();
  const bindings = first.HostConfig.PortBindings;
  t.ok(Object.keys(bindings ?? {}).length > 0, 'the container publishes a port');

  // A broken release: the helper stops the old one, the new one exits, the old one runs again.
  await publish(broken);
  try {
    await waitFor(async () => {
      const info = await engine.getContainer(self).inspect().catch(() => undefined);
      return info?.Id === first.Id && info.State.Running && info.State.StartedAt !== first.State.StartedAt ? true : undefined;
    }, 180_000, 500);
  } catch (err) {
    await diagnose();
    throw err;
  }
  t.match(await dockerCli(env, ['logs', self]), /handed to the ephemeral helper/, 'the old instance handed its replacement to the helper');
  // The release that failed is remembered: the next runs (every 3 s) skip it rather than hand it off again.
  const logs = await waitFor(async () => {
    const text = await dockerCli(env, ['logs', self]).catch(() => '');
    return /not retried: /.test(text) ? text : undefined;
  }, 120_000, 1000).catch(async (err: unknown) => {
    await diagnose();
    throw err;
  });
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  const later = await dockerCli(env, ['logs', self]);
  t.equal(later.match(/handed to the ephemeral helper/g)?.length, 1, 'handed off once, not at every run');
  t.match(logs, /not retried: sha256:[0-9a-f]{64} failed at .*helper put this container back/, 'the runs after it say why they skip it');
  const named = (await engine.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.includes(prefix)));
  t.same(named.map((c) => [c.Id, c.State]), [[first.Id, 'running']], 'the old container runs under its name, nothing staged beside it');

  // A good release: replaced, same port binding, old container and helper gone.
  await publish(next);
  const nextId = await imageId(next);
  let replaced;
  try {
    replaced = await waitFor(async () => {
      const info = await engine.getContainer(self).inspect().catch(() => undefined);
      if (!info || info.Id === first.Id || info.Image !== nextId || !info.State.Running) return undefined;
      return (await helpers()).length === 0 ? info : undefined;
    }, 180_000, 500);
  } catch (err) {
    await diagnose();
    throw err;
  }
  t.same(replaced.HostConfig.PortBindings, bindings, 'the replacement publishes the same port');
  t.ok(replaced.Config.Cmd?.includes('--ephemeral-self-update'), 'and keeps its configuration');
  const left = (await engine.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.includes(prefix)));
  t.same(left.map((c) => c.Id), [replaced.Id], 'the old container is gone: one Tidewatch is left');
  const health = await waitFor(async () => fetch(`http://127.0.0.1:${port}/livez`).then((r) => r.status).catch(() => undefined), 60_000, 500);
  t.equal(health, 200, 'the new instance answers on the port');
});
