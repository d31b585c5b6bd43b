// Several engines through the real binary (docs/hosts.md, issue 13): the private engine over its unix
// socket and the second one over TCP with TLS (certificates made by openssl in the test environment). One
// run checks and updates both, with one registry request per image; containers of the same name on both are
// told apart by `host`; --no-pull reads each engine's own images; with a Swarm service on a third engine each
// container and service is one record; an engine that stops answering fails only its own containers and
// /readyz names it.
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import type Docker from 'dockerode';
import t, { type Test } from 'tap';
import { docker, logMark, requireSwarm, requireTwoEngines, secondDocker, swarmDocker, waitFor, type TwoEngineEnv } from '../helpers/env.js';
import { pullImage, pushImage, removeContainers, removeImages, runContainer, testPrefix, type PushedImage } from '../helpers/images.js';
import { QUICK_STOP_CMD } from '../helpers/scenarios.js';
import { call, runBinary, startService, type RunningService } from '../helpers/service.js';
import { createService, removeServices, waitForTasks } from '../helpers/swarm.js';

const TOKEN = 'e2e-hosts-token-0123456789';

interface CheckRecord {
  name: string;
  kind?: string;
  host?: string;
  latest_digest?: string;
  image_id: string;
  update_available: boolean;
  error?: string;
}

interface Engines {
  readonly env: TwoEngineEnv;
  readonly first: Docker;
  readonly second: Docker;
  readonly prefix: string;
}

async function engines(t: Test, label: string): Promise<Engines | undefined> {
  const env = await requireTwoEngines(t);
  if (!env) return undefined;
  const first = docker(env);
  const second = secondDocker(env);
  const prefix = testPrefix(label);
  t.teardown(async () => {
    for (const engine of [first, second]) {
      await removeContainers(engine, prefix);
      await removeImages(engine, prefix);
    }
  });
  return { env, first, second, prefix };
}

/** The second engine with its own TLS settings in the entry (docs/hosts.md#tls). */
function secondEntry(env: TwoEngineEnv, address = env.secondDockerHost): string {
  return `${address}?tlsverify=1&cert-path=${env.secondCertPath}`;
}

async function runOn(engine: Docker, name: string, image: PushedImage): Promise<void> {
  await pullImage(engine, image.ref);
  await runContainer(engine, { name, image: image.ref, cmd: QUICK_STOP_CMD });
}

async function serviceFor(t: Test, prefix: string, hosts: string[], extra: string[] = []): Promise<RunningService> {
  const service = await startService([
    ...hosts.flatMap((host) => ['--host', host]),
    '--http-api-endpoints', 'update,check,containers,rollback',
    '--http-api-token', TOKEN,
    '--update-grace-period', '0',
    '--stop-timeout', '5s',
    ...extra,
    `${prefix}-.*`,
  ]);
  t.teardown(() => service.stop('SIGKILL'));
  return service;
}

async function check(service: RunningService, query = ''): Promise<CheckRecord[]> {
  const res = await call(`${service.url}/v1/check${query}`, { method: 'POST', token: TOKEN });
  if (res.status !== 200) throw new Error(`check answered ${res.status}: ${res.text}`);
  return (res.body as { containers: CheckRecord[] }).containers;
}

const byPlace = (records: readonly CheckRecord[]) =>
  [...records].sort((a, b) => `${a.host} ${a.name}`.localeCompare(`${b.host} ${b.name}`));
/** Rows of [host, name, …] in the order byPlace gives. */
const sortRows = <T extends unknown[]>(rows: T[]) => [...rows].sort((a, b) => `${a[0]} ${a[1]}`.localeCompare(`${b[0]} ${b[1]}`));

t.test('one run checks and updates containers on both engines; records and filters name the engine', async (t) => {
  const s = await engines(t, 'e2e-hosts');
  if (!s) return;
  const { env, first, second, prefix } = s;
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  // `web` on both engines: names repeat across engines.
  await runOn(first, `${prefix}-web`, v1);
  await runOn(second, `${prefix}-web`, v1);
  await runOn(second, `${prefix}-api`, v1);
  const v2 = await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD });

  const service = await serviceFor(t, prefix, [env.dockerHost, secondEntry(env)]);
  const mark = await logMark(env.registryLog);
  const records = byPlace(await check(service));
  t.same(
    records.map((r) => [r.host, r.name, r.update_available, r.error]),
    sortRows([
      [env.dockerHost, `${prefix}-web`, true, undefined],
      [env.secondDockerHost, `${prefix}-api`, true, undefined],
      [env.secondDockerHost, `${prefix}-web`, true, undefined],
    ]),
    'one record per container, each naming its engine as configured (without the TLS settings)',
  );
  // The registry writes its access-log line after answering: wait for the check's, then count.
  const manifestRequests = await waitFor(async () => {
    const lines = (await mark.read()).filter((l) => l.includes(`/v2/${repo}/manifests/latest `));
    return lines.length > 0 ? lines : undefined;
  });
  await new Promise((r) => setTimeout(r, 300));
  // Besides the tag, at most one read of the candidate's version, by its digest, for all three (docs/versions.md).
  const others = (await mark.read()).filter((l) => l.includes(`/v2/${repo}/manifests/`) && !l.includes(`/v2/${repo}/manifests/latest `));
  t.ok(others.length <= 1 && others.every((l) => l.includes(`/manifests/${v2.digest} `)), 'no other manifest request but one version read of the candidate');
  t.equal(manifestRequests.length, 1, 'one registry request for the image of three containers on two engines');

  const onSecond = await check(service, `?host=${encodeURIComponent(env.secondDockerHost)}`);
  t.same(onSecond.map((r) => r.host), [env.secondDockerHost, env.secondDockerHost], 'host= keeps that engine\'s containers');
  const oneWeb = await check(service, `?host=${encodeURIComponent(env.dockerHost)}&container=${prefix}-web`);
  t.same(oneWeb.map((r) => [r.host, r.name]), [[env.dockerHost, `${prefix}-web`]], 'host= and container= together name one web');
  const listed = await call(`${service.url}/v1/containers?host=${encodeURIComponent(env.secondDockerHost)}`, { token: TOKEN });
  t.same(
    ((listed.body as { containers: { name: string; host: string }[] }).containers).map((c) => c.host),
    [env.secondDockerHost, env.secondDockerHost],
    '/v1/containers filters by host too',
  );

  const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { summary: { scanned: 3, updated: 3, failed: 0, skipped: 0 } }, 'both engines updated in one run');
  const v2Id = v2.configDigest;
  t.equal((await first.getContainer(`${prefix}-web`).inspect()).Image, v2Id, 'web on the first engine runs v2');
  for (const name of [`${prefix}-web`, `${prefix}-api`]) {
    const info = await second.getContainer(name).inspect();
    t.equal(info.Image, v2Id, `${name} on the second engine runs v2 (pulled by that engine)`);
    t.ok(info.State.Running);
  }
  const after = byPlace(await check(service));
  t.same(after.map((r) => [r.host, r.update_available]), after.map((r) => [r.host, false]), 'nothing left stale on either engine');
  t.equal(new Set(after.map((r) => r.host)).size, 2);

  // `web` updated on both engines: a rollback or a release by name alone is ambiguous (docs/http-api.md#post-v1rollback),
  // answered 400 naming both engines, never 404 nor a release of nothing; host= names the one meant.
  for (const path of ['rollback', 'release']) {
    const ambiguous = await call(`${service.url}/v1/${path}?container=${prefix}-web`, { method: 'POST', token: TOKEN });
    t.equal(ambiguous.status, 400, `${path} without host=: ${ambiguous.text}`);
    t.match(ambiguous.body, { code: 'TW_ERR_CONTAINER_AMBIGUOUS' });
    t.match(ambiguous.text, env.dockerHost, `${path}: the answer names the first engine`);
    t.match(ambiguous.text, env.secondDockerHost, `${path}: and the second`);
  }
  const rolled = await call(`${service.url}/v1/rollback?container=${prefix}-web&host=${encodeURIComponent(env.dockerHost)}`, { method: 'POST', token: TOKEN });
  t.equal(rolled.status, 200, rolled.text);
  t.equal((await first.getContainer(`${prefix}-web`).inspect()).Image, v1.configDigest, 'host= rolled back web on the first engine');
  t.equal((await second.getContainer(`${prefix}-web`).inspect()).Image, v2Id, 'and left the second engine\'s web alone');
  const released = await call(`${service.url}/v1/release?container=${prefix}-web&host=${encodeURIComponent(env.dockerHost)}`, { method: 'POST', token: TOKEN });
  t.match(released.body, { container: `${prefix}-web`, released: true }, 'host= releases the held web');
});

t.test('--no-pull compares each container with the image store of its own engine', async (t) => {
  const s = await engines(t, 'e2e-hosts-nopull');
  if (!s) return;
  const { env, first, second, prefix } = s;
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  await runOn(first, `${prefix}-web`, v1);
  await runOn(second, `${prefix}-web`, v1);
  // Only the second engine has the newer image under the tag.
  await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD });
  await pullImage(second, v1.ref);

  const service = await serviceFor(t, prefix, [env.dockerHost, secondEntry(env)], ['--no-pull']);
  const records = await check(service);
  t.same(
    sortRows(records.map((r) => [r.host, r.update_available, r.error])),
    sortRows([[env.dockerHost, false, undefined], [env.secondDockerHost, true, undefined]]),
    'stale only where that engine holds a newer image',
  );
});

t.test('a mixed setup: containers on two engines and a Swarm service on a third, one record each, one registry request', async (t) => {
  const s = await engines(t, 'e2e-hosts-mixed');
  if (!s) return;
  const swarmEnv = await requireSwarm(t);
  if (!swarmEnv) return;
  const { env, first, second, prefix } = s;
  const manager = swarmDocker(swarmEnv);
  t.teardown(async () => {
    await removeServices(manager, prefix);
    await removeContainers(manager, prefix);
  });
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  await runOn(first, `${prefix}-web`, v1);
  await runOn(second, `${prefix}-web`, v1);
  const pinned = `${v1.ref}@${v1.digest}`;
  const id = await createService(manager, { name: `${prefix}-svc`, image: pinned, labels: { 'tidewatch.enable': 'true' } });
  await waitForTasks(manager, id, pinned, 1);
  const v2 = await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD });

  const service = await serviceFor(t, prefix, [env.dockerHost, secondEntry(env), swarmEnv.swarmDockerHost]);
  const mark = await logMark(env.registryLog);
  const records = byPlace(await check(service));
  t.same(
    records.map((r) => [r.host, r.name, r.kind, r.update_available]),
    sortRows([
      [env.dockerHost, `${prefix}-web`, undefined, true],
      [env.secondDockerHost, `${prefix}-web`, undefined, true],
      [swarmEnv.swarmDockerHost, `${prefix}-svc`, 'service', true],
    ]),
    'one record per container and per service (no task container), each naming its engine',
  );
  t.ok(records.every((r) => r.latest_digest === v2.digest));
  // The registry writes its access-log line after answering: wait for the check's, then a moment for any other.
  await waitFor(async () => (await mark.read()).some((l) => l.includes(`/v2/${repo}/manifests/`)));
  await new Promise((r) => setTimeout(r, 300));
  const manifests = (await mark.read()).filter((l) => l.includes(`/v2/${repo}/manifests/`));
  t.equal(manifests.filter((l) => l.includes(`/v2/${repo}/manifests/latest `)).length, 1, 'one registry request for the image of all three');
  t.ok(manifests.length <= 2, 'and at most one read of the candidate\'s version (docs/versions.md)');
});

/**
 * A loopback TCP relay to the second engine: the engine as Tidewatch sees it, which the test can take
 * away (every connection cut, the port refusing) without stopping the real engine other tests use.
 */
async function relayTo(port: number): Promise<{ port: number; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    async cut() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** A loopback port nothing listens on (taken, then released). */
async function refusingPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

t.test('an engine that stops answering fails only its own containers; /readyz names it', async (t) => {
  const s = await engines(t, 'e2e-hosts-down');
  if (!s) return;
  const { env, first, second, prefix } = s;
  const repo = `${prefix}/app`;
  const v1 = await pushImage({ registry: env.registry, repo, marker: 'v1', cmd: QUICK_STOP_CMD });
  await runOn(first, `${prefix}-web`, v1);
  await runOn(second, `${prefix}-web`, v1);
  await runOn(second, `${prefix}-api`, v1);

  const relay = await relayTo(Number(new URL(env.secondDockerHost.replace(/^tcp:/, 'https:')).port));
  t.teardown(() => relay.cut());
  const relayed = `tcp://127.0.0.1:${relay.port}`;
  // A third engine that never answers, from the start: the run goes on without it.
  const never = `tcp://127.0.0.1:${await refusingPort()}`;
  const service = await serviceFor(t, prefix, [env.dockerHost, secondEntry(env, relayed), secondEntry(env, never)]);

  const ready = await call(`${service.url}/readyz`);
  t.equal(ready.status, 503, 'not ready while an engine is down');
  t.match(ready.body, { status: 'unavailable', error: `docker ${never}: ` });
  t.notMatch((ready.body as { error: string }).error, relayed, 'the engines that answer are not named');

  const before = byPlace(await check(service));
  t.same(
    before.map((r) => [r.host, r.name, r.error]),
    sortRows([[env.dockerHost, `${prefix}-web`, undefined], [relayed, `${prefix}-api`, undefined], [relayed, `${prefix}-web`, undefined]]),
    'checked while it answers',
  );

  await relay.cut();
  const v2 = await pushImage({ registry: env.registry, repo, marker: 'v2', cmd: QUICK_STOP_CMD });
  const res = await call(`${service.url}/v1/update`, { method: 'POST', token: TOKEN });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { summary: { scanned: 3, updated: 1, failed: 2 } }, 'the first engine updated, the down engine\'s two containers failed');
  t.equal((await first.getContainer(`${prefix}-web`).inspect()).Image, v2.configDigest, 'the first engine\'s web runs v2');
  for (const name of [`${prefix}-web`, `${prefix}-api`]) {
    t.equal((await second.getContainer(name).inspect()).Image, v1.configDigest, `${name} on the down engine untouched`);
  }

  const records = byPlace(await check(service));
  t.same(records.map((r) => [r.host, r.name]), sortRows([[env.dockerHost, `${prefix}-web`], [relayed, `${prefix}-api`], [relayed, `${prefix}-web`]]));
  t.match(records.find((r) => r.host === env.dockerHost), { update_available: false, error: undefined }, 'the answering engine\'s container is checked');
  for (const record of records.filter((r) => r.host === relayed)) {
    t.match(record, { update_available: false, error: new RegExp(`^engine ${relayed} did not answer: .*ECONNREFUSED`) }, `${record.name}: a per-target error`);
  }
  const down = await call(`${service.url}/readyz`);
  t.equal(down.status, 503);
  const error = (down.body as { error: string }).error;
  t.match(error, `docker ${relayed}: `, '/readyz names the engine that went down');
  t.match(error, `docker ${never}: `);
  t.notMatch(error, env.dockerHost, 'not the one that answers');
});

t.test('a bad --host list exits 2 with one line naming the option', async (t) => {
  const bad = await runBinary(['--run-once', '--host', 'unix:///tmp/a.sock', '--host', 'tcp://127.0.0.1:2376?cert-path=']);
  t.equal(bad.code, 2);
  const lines = bad.stderr.trim().split('\n');
  t.equal(lines.length, 1, bad.stderr);
  t.match(lines[0], /--host \(TIDEWATCH_HOSTS\).*cert-path is empty/);
  const twice = await runBinary(['--run-once'], { TIDEWATCH_HOSTS: 'tcp://127.0.0.1:2376, tcp://127.0.0.1:2376' });
  t.equal(twice.code, 2);
  t.match(twice.stderr.trim(), /^[^\n]*--host \(TIDEWATCH_HOSTS\)[^\n]*listed twice[^\n]*$/);
});
