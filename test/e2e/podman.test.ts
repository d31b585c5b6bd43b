// Issue 13 item 3 through the real binary: the docker runtime against Podman's Docker-compatible API
// (Debian's podman, `podman system service` started by scripts/test-env.sh). Containers are made both
// ways a Podman user makes them, with the podman CLI and through the compatible API, from images pushed
// to the local registry; Tidewatch discovers, checks, updates and rolls them back (docs/podman.md).
import type Docker from 'dockerode';
import { EventSource } from 'eventsource';
import t from 'tap';
import { pack } from 'tar-stream';
import { REPLACES_LABEL } from '../../plugins/docker/target.js';
import { waitFor } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix, type PushedImage } from '../helpers/images.js';
import { podman, podmanCli, requirePodman, type PodmanEnv } from '../helpers/podman.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, startService, type RunningService } from '../helpers/service.js';

const TOKEN = 'e2e-podman-token-0123456789';

/** A tar of one file, named by its path from the root. */
async function tarOfOne(name: string, content: string, header: { mode: number; uid: number; gid: number }): Promise<Buffer> {
  const packer = pack();
  packer.entry({ name, ...header }, content);
  packer.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of packer) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
const EVENTS_TOKEN = 'e2e-podman-events-token-01';

interface TestLike {
  plan(n: number, comment?: string): void;
  teardown(fn: () => unknown): void;
}

interface Setting {
  env: PodmanEnv;
  engine: Docker;
  prefix: string;
  repo: string;
  v1: PushedImage;
}

/** The environment, a prefix whose containers and images go afterwards, and `${prefix}/app` v1 pulled into Podman. */
async function setting(t: TestLike, label: string): Promise<Setting | undefined> {
  const env = await requirePodman(t);
  if (!env) return undefined;
  const engine = podman(env);
  const prefix = testPrefix(label);
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD, env: ['PATH=/bin', 'FROM_IMAGE=1'] });
  await pullImage(engine, v1.ref);
  return { env, engine, prefix, repo, v1 };
}

/** One created through the compatible API (as docker-compose or a Docker client would), one with the podman CLI. */
async function twoContainers(s: Setting, apiLabels: Record<string, string> = {}): Promise<{ api: string; cli: string }> {
  const api = `${s.prefix}-api`;
  const cli = `${s.prefix}-cli`;
  await runContainer(s.engine, {
    name: api,
    image: s.v1.ref,
    env: ['KEEP=api'],
    labels: { 'com.example.role': 'api', ...apiLabels },
    restartPolicy: { Name: 'on-failure', MaximumRetryCount: 2 },
  });
  await podmanCli(s.env, [
    'run', '-d', '--name', cli, '--network', 'none', '--restart', 'unless-stopped',
    '-e', 'KEEP=cli', '--label', 'com.example.role=cli', s.v1.ref, '/bin/sh', '-c', "trap 'exit 0' TERM; sleep 3600 & wait",
  ]);
  return { api, cli };
}

async function serviceFor(t: TestLike, s: Setting, endpoints: string, extra: string[] = []): Promise<RunningService> {
  const service = await startService([
    '--host', s.env.podmanHost,
    '--http-api-endpoints', endpoints,
    '--http-api-token', TOKEN,
    '--http-api-events-token', EVENTS_TOKEN,
    '--update-grace-period', '1s',
    '--stop-timeout', '5s',
    ...extra,
    // Only this file's containers: other test files may share the engine.
    `${s.prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

function subscribe(service: RunningService): { events: { type: string; data: Record<string, unknown> }[]; close(): void } {
  const events: { type: string; data: Record<string, unknown> }[] = [];
  const source = new EventSource(`${service.url}/v1/events?access_token=${EVENTS_TOKEN}`);
  for (const type of ['update_completed', 'update_failed', 'scan_completed']) {
    // Each message is the event itself: `{"type","data"}`.
    source.addEventListener(type, (message) => events.push(JSON.parse(message.data) as { type: string; data: Record<string, unknown> }));
  }
  return { events, close: () => source.close() };
}

async function ours(s: Setting): Promise<Docker.ContainerInfo[]> {
  const all = await s.engine.listContainers({ all: true });
  return all.filter((c) => c.Names.some((n) => n.replace(/^\//, '').startsWith(s.prefix)));
}

t.test('Podman: /v1/containers lists its containers, /v1/check finds a newer image and pulls nothing', async (t) => {
  const s = await setting(t, 'e2e-podman-check');
  if (!s) return;
  const { api, cli } = await twoContainers(s);
  const service = await serviceFor(t, s, 'check,containers');

  const listed = await call(`${service.url}/v1/containers`, { token: TOKEN });
  t.equal(listed.status, 200);
  const containers = (listed.body as { containers: Record<string, unknown>[] }).containers;
  t.same(containers.map((c) => c['name']).sort(), [api, cli], 'both containers are discovered, by their names');
  for (const c of containers) {
    t.match(c, { image: s.v1.ref, image_id: s.v1.configDigest, digest: s.v1.digest, state: 'running', update_source: 'registry' }, `${String(c['name'])} as Docker would show it`);
  }

  const check = async () => {
    const res = await call(`${service.url}/v1/check`, { method: 'POST', token: TOKEN });
    t.equal(res.status, 200);
    return (res.body as { containers: { name: string; update_available: boolean; latest_digest?: string; error?: string }[] }).containers;
  };
  const before = await check();
  t.same(before.map((r) => [r.name, r.update_available, r.error]).sort(), [[api, false, undefined], [cli, false, undefined]], 'up to date at first');

  // Only this test's repository counts: another test file may pull into the same Podman meanwhile (two files run at once).
  const ours = async () => (await s.engine.listImages()).filter((i) => [...(i.RepoTags ?? []), ...(i.RepoDigests ?? [])].some((r) => r.includes(s.repo))).map((i) => i.Id).sort();
  const imagesBefore = await ours();
  const v2 = await pushImage({ registry: s.env.registry, repo: s.repo, marker: `${s.repo} v2`, cmd: QUICK_STOP_CMD, env: ['PATH=/bin', 'FROM_IMAGE=1'] });
  const after = await check();
  for (const name of [api, cli]) {
    t.match(after.find((r) => r.name === name), { update_available: true, latest_digest: v2.digest }, `${name} is stale after a push to its tag`);
  }
  t.same(await ours(), imagesBefore, 'the check pulled nothing of this repository into Podman');
});

t.test('Podman: an update replaces each container under its name with its configuration, on the new image', async (t) => {
  const s = await setting(t, 'e2e-podman-update');
  if (!s) return;
  const { api, cli } = await twoContainers(s, {
    'tidewatch.lifecycle.post-update': 'echo "$WT_CONTAINER" > /tmp/post-update',
    'com.centurylinklabs.watchtower.copy-file': '/etc/app/conf.yml',
  });
  // A file written in after creation, as Compose writes `configs: content:`: the copy-file label carries it over.
  await s.engine.getContainer(api).putArchive(await tarOfOne('etc/app/conf.yml', 'listen: 8080\n', { mode: 0o640, uid: 1234, gid: 2345 }), { path: '/' });
  const fileFacts = () => podmanCli(s.env, ['exec', api, 'sh', '-c', "stat -c '%u:%g:%a' /etc/app/conf.yml && cat /etc/app/conf.yml"]);
  t.equal(await fileFacts(), '1234:2345:640\nlisten: 8080', 'the file is in the old container');
  // On Podman's default network ("bridge" mode, the network named "podman"), created and never started:
  // starting it would set up a bridge on the test machine (--include-stopped makes it a target).
  const net = `${s.prefix}-net`;
  await s.engine.createContainer({ name: net, Image: s.v1.ref, HostConfig: { NetworkMode: 'bridge' } });
  const netBefore = await s.engine.getContainer(net).inspect();
  t.same(Object.keys(netBefore.NetworkSettings.Networks), ['podman'], "Podman's default network");
  const before = new Map<string, Docker.ContainerInspectInfo>();
  for (const name of [api, cli]) before.set(name, await s.engine.getContainer(name).inspect());
  // The new image brings defaults of its own: they apply, as on Docker, unless the user had set them.
  // Podman's inspect shows its own HOME and working directory as if they were the user's (docs/podman.md).
  const v2 = await pushImage({
    registry: s.env.registry,
    repo: s.repo,
    marker: `${s.repo} v2`,
    cmd: QUICK_STOP_CMD,
    env: ['PATH=/bin', 'FROM_IMAGE=2', 'HOME=/home/app'],
    workingDir: '/tmp',
  });

  // More tags on the old image: --cleanup removes it unforced on Podman, one tag at a time (docs/podman.md).
  // (The pull of the new image takes `latest` from it; these two stay.)
  await podmanCli(s.env, ['tag', s.v1.ref, `${s.env.registry}/${s.repo}:second-tag`, `${s.env.registry}/${s.repo}:third-tag`]);

  const service = await serviceFor(t, s, 'update,events', ['--enable-lifecycle-hooks', '--include-stopped', '--cleanup']);
  const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200);
  t.match(res.body, { summary: { scanned: 3, updated: 3, failed: 0 } }, 'all three updated');

  const netNow = await s.engine.getContainer(net).inspect();
  t.not(netNow.Id, netBefore.Id, 'the container on the default network is replaced');
  t.equal(netNow.Image, v2.configDigest);
  t.equal(netNow.HostConfig.NetworkMode, 'bridge', 'in the same network mode');
  t.same(Object.keys(netNow.NetworkSettings.Networks), ['podman'], 'on the same network');
  t.equal(netNow.State.Status, 'created', 'and not started, as it was not running');

  for (const name of [api, cli]) {
    const old = before.get(name) as Docker.ContainerInspectInfo;
    const now = await s.engine.getContainer(name).inspect();
    t.not(now.Id, old.Id, `${name} is a new container`);
    t.equal(now.Image, v2.configDigest, `${name} runs the new image`);
    t.ok(now.State.Running, `${name} is running`);
    t.equal(now.Config.Image, s.v1.ref, 'on the same reference');
    const imageEnv = new Set(['FROM_IMAGE=1', 'HOME=/root']);
    // A default hostname (the container's short id) stays default: the new container's own (docs/replacement.md),
    // and Podman's HOSTNAME variable follows it.
    const defaultHostname = old.Config.Hostname === old.Id.slice(0, 12);
    const hostname = defaultHostname ? now.Id.slice(0, 12) : old.Config.Hostname;
    const hostnameVar = old.Config.Env.some((e) => e.startsWith('HOSTNAME=')) ? [`HOSTNAME=${hostname}`] : [];
    const expected = [...old.Config.Env.filter((e) => !imageEnv.has(e) && !e.startsWith('HOSTNAME=')), 'FROM_IMAGE=2', 'HOME=/home/app', ...hostnameVar].sort();
    t.same([...now.Config.Env].sort(), expected, `${name}: the user's environment on the new image's, nothing of Podman's frozen`);
    t.ok(old.Config.Env.includes(name === api ? 'KEEP=api' : 'KEEP=cli'), `${name}: the user's variable was there before`);
    t.same(now.Config.Labels, { ...old.Config.Labels, [REPLACES_LABEL]: old.Id }, `${name}: the same labels, and the one naming what it replaced`);
    t.same(now.Config.Cmd, old.Config.Cmd, `${name}: the same command`);
    t.same(now.HostConfig.RestartPolicy, old.HostConfig.RestartPolicy, `${name}: the same restart policy`);
    t.equal(now.HostConfig.NetworkMode, 'none', `${name}: still without a network`);
    t.equal(now.Config.Hostname, hostname, `${name}: the same hostname, or a default one still default`);
    t.equal(now.Config.WorkingDir, '/tmp', `${name}: the new image's working directory`);
  }
  t.match(before.get(api)?.HostConfig.RestartPolicy, { Name: 'on-failure', MaximumRetryCount: 2 });
  t.match(before.get(cli)?.HostConfig.RestartPolicy, { Name: 'unless-stopped' });

  const gone = await s.engine.getImage(s.v1.configDigest).inspect().then(() => false, (err: { statusCode?: number }) => err.statusCode === 404);
  t.ok(gone, '--cleanup removed the old image and its tags');

  // Podman's archive API gives every file to root (its `docker cp` semantics): mode and content are kept, the owner is not (docs/podman.md).
  t.equal(await fileFacts(), '0:0:640\nlisten: 8080', 'copy-file: the file written into the old container is in the new one, its mode kept');
  // The post-update hook ran in the new container through the compatible API's exec.
  const written = await podmanCli(s.env, ['exec', api, 'cat', '/tmp/post-update']);
  t.match(JSON.parse(written), { name: api, image_name: s.v1.ref }, 'post-update ran in the new container with WT_CONTAINER');

  t.same((await ours(s)).map((c) => c.Names[0]?.replace(/^\//, '')).sort(), [api, cli, net].sort(), 'nothing left behind: no aside or staged containers');
});

t.test('Podman: a new image that exits at once is rolled back, the old container runs again under its name', async (t) => {
  const s = await setting(t, 'e2e-podman-rollback');
  if (!s) return;
  const name = `${s.prefix}-app`;
  const old = await runContainer(s.engine, { name, image: s.v1.ref, env: ['KEEP=1'], restartPolicy: 'unless-stopped' });
  await pushImage({ registry: s.env.registry, repo: s.repo, marker: `${s.repo} bad`, cmd: ['/bin/sh', '-c', 'exit 1'] });

  const service = await serviceFor(t, s, 'update,events');
  const stream = subscribe(service);
  t.teardown(() => stream.close());
  await new Promise((r) => setTimeout(r, 300));

  const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200);
  t.match(res.body, { summary: { failed: 1, updated: 0 } });
  const failed = await waitFor(() => stream.events.find((e) => e.type === 'update_failed'), 10_000);
  // The event's whole data in the message: when the rollback fails, its error says why.
  t.match(failed.data, { container: name, rolled_back: true, error: String }, `reported failed and rolled back: ${JSON.stringify(failed.data)}`);

  const now = await s.engine.getContainer(name).inspect();
  t.equal(now.Id, old.id, 'the old container is back under its name');
  t.ok(now.State.Running, 'and running');
  t.equal(now.Image, s.v1.configDigest, 'on the old image');
  t.same((await ours(s)).map((c) => c.Names[0]?.replace(/^\//, '')), [name], 'nothing left behind: no aside or staged containers');
});

t.test("Podman: an image of a registry with Basic auth is pulled with Tidewatch's credentials (X-Registry-Auth)", async (t) => {
  const env = await requirePodman(t);
  if (!env) return;
  const engine = podman(env);
  const prefix = testPrefix('e2e-podman-auth');
  t.teardown(async () => {
    await removeContainers(engine, prefix);
    await removeImages(engine, prefix);
  });
  const auth = { username: env.authUser, password: env.authPassword };
  const repo = `${prefix}/private`;
  const v1 = await pushImage({ registry: env.authRegistry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD, auth });
  await pullImage(engine, v1.ref, auth);
  const name = `${prefix}-private`;
  await runContainer(engine, { name, image: v1.ref });
  const v2 = await pushImage({ registry: env.authRegistry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD, auth });

  const service = await startService(
    ['--host', env.podmanHost, '--http-api-endpoints', 'update', '--http-api-token', TOKEN, '--update-grace-period', '1s', name],
    { REPO_USER: env.authUser, REPO_PASS: env.authPassword },
  );
  t.teardown(() => service.stop('SIGKILL'));
  const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(res.body, { summary: { scanned: 1, updated: 1, failed: 0 } }, 'checked and pulled with the credentials');
  t.equal((await engine.getContainer(name).inspect()).Image, v2.configDigest, 'the new image runs');
});

/**
 * Podman runs health checks from systemd timers, and the test machine has no systemd (docs/podman.md):
 * the test does the timer's work, `podman healthcheck run` on every running container of the test.
 */
function healthTimer(s: Setting): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const c of await ours(s).catch(() => [])) {
        if (c.State === 'running') await podmanCli(s.env, ['healthcheck', 'run', c.Id]).catch(() => undefined);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

t.test("Podman: a new image's health check decides, as on Docker: healthy is proven after the grace period, unhealthy rolled back at once", async (t) => {
  const s = await setting(t, 'e2e-podman-health');
  if (!s) return;
  const hour = 3600 * 1_000_000_000;
  const good = `${s.prefix}-good`;
  const bad = `${s.prefix}-bad`;
  const badRepo = `${s.prefix}/bad`;
  const badV1 = await pushImage({ registry: s.env.registry, repo: badRepo, marker: `${badRepo} v1`, cmd: QUICK_STOP_CMD });
  await pullImage(s.engine, badV1.ref);
  const old = await runContainer(s.engine, { name: bad, image: badV1.ref });
  await runContainer(s.engine, { name: good, image: s.v1.ref });
  const healthy = await pushImage({
    registry: s.env.registry, repo: s.repo, marker: `${s.repo} healthy`, cmd: QUICK_STOP_CMD,
    healthcheck: { Test: ['CMD', '/bin/true'], Interval: hour, Retries: 1 },
  });
  await pushImage({
    registry: s.env.registry, repo: badRepo, marker: `${badRepo} unhealthy`, cmd: QUICK_STOP_CMD,
    healthcheck: { Test: ['CMD', '/bin/false'], Interval: hour, Retries: 1 },
  });

  const timer = healthTimer(s);
  t.teardown(() => timer.stop());
  // The checks' hour-long interval would make the proof wait up to --update-health-timeout: a proof ends
  // within the test only on the health check's word (docs/replacement.md#proof).
  const service = await serviceFor(t, s, 'update,events', ['--update-grace-period', '5s']);
  const stream = subscribe(service);
  t.teardown(() => stream.close());
  await new Promise((r) => setTimeout(r, 300));
  const started = Date.now();
  const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.match(res.body, { summary: { scanned: 2, updated: 1, failed: 1 } });
  t.ok(Date.now() - started < 60_000, 'neither waited for the check\'s own timing');

  const now = await s.engine.getContainer(good).inspect();
  t.equal(now.Image, healthy.configDigest, 'the healthy image runs');
  t.equal(now.State.Health?.Status, 'healthy');
  const failed = await waitFor(() => stream.events.find((e) => e.type === 'update_failed'), 10_000);
  t.match(failed.data, { container: bad, rolled_back: true, error: /unhealthy/ }, 'the unhealthy one is rolled back');
  const back = await s.engine.getContainer(bad).inspect();
  t.equal(back.Id, old.id, 'the old container is back under its name');
  t.ok(back.State.Running);
  t.same((await ours(s)).map((c) => c.Names[0]?.replace(/^\//, '')).sort(), [bad, good].sort(), 'nothing left behind');
});

t.test('Podman: SIGKILL of the service in the middle of a replacement loses no container; the next start repairs it', async (t) => {
  const s = await setting(t, 'e2e-podman-killed');
  if (!s) return;
  const name = `${s.prefix}-app`;
  const old = await runContainer(s.engine, { name, image: s.v1.ref, env: ['KEEP=1'], restartPolicy: 'always' });
  // Health checks never run here (no systemd, docs/podman.md): the new container stays `starting`, and
  // the service sits in the proof until it is killed.
  const hour = 3600 * 1_000_000_000;
  await pushImage({
    registry: s.env.registry, repo: s.repo, marker: `${s.repo} v2`, cmd: QUICK_STOP_CMD,
    healthcheck: { Test: ['CMD', '/bin/true'], Interval: hour, StartPeriod: hour },
  });

  const first = await serviceFor(t, s, 'update', ['--update-grace-period', '2m']);
  void call(`${first.url}/v1/update`, { method: 'POST', token: TOKEN }).catch(() => undefined);
  await waitFor(async () => {
    const holder = await s.engine.getContainer(name).inspect().catch(() => undefined);
    return holder !== undefined && holder.Id !== old.id && holder.State.Running;
  }, 30_000);
  await first.stop('SIGKILL');
  t.ok((await ours(s)).some((c) => c.Names.some((n) => n.includes('--tidewatch-old-'))), 'the old container was aside when the service died');

  const second = await serviceFor(t, s, 'update');
  await second.stop('SIGTERM');
  const now = await s.engine.getContainer(name).inspect();
  t.equal(now.Id, old.id, 'the old container is back under its name');
  t.ok(now.State.Running, 'running as before');
  t.ok(now.Config.Env.includes('KEEP=1'));
  t.same((await ours(s)).map((c) => c.Names[0]?.replace(/^\//, '')), [name], 'nothing left renamed, staged or duplicated');
});
