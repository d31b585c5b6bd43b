// The engine scenarios of docs/engines.md#engines-tested, the same on every engine set-up, through the built binary.
// From API 1.44 on the engine takes every network at create time and the MAC address per network endpoint
// (docs/compose.md#docker-versions): an update must keep network aliases, a static MAC address, a published port and
// several networks on both; a new image that exits is rolled back with all of them; a replacement killed halfway is
// repaired by the next start. test/e2e/engine-versions-*.test.ts call engineScenarios() once each.
import type Docker from 'dockerode';
import t, { type Test } from 'tap';
import { waitFor } from './env.js';
import { apiVersionOf, appOnTwoNetworks, runOnNetworks } from './networks.js';
import { pullImage } from './images.js';
import { ENGINE_SETUPS, pushNext, QUICK_STOP_CMD, runningOn, type EngineScenario, type EngineSetup, type RunningOn, type Scenario } from './scenarios.js';
import { call, runBinary, startService } from './service.js';

const TOKEN = 'e2e-engine-versions-token-0123';

/** A scenario on `under`'s engine, which speaks the API version it should. */
async function scenarioOn(t: Test, under: EngineSetup, label: string): Promise<EngineScenario | undefined> {
  const s = await under.scenario(t, label);
  if (s) t.ok(under.api(await apiVersionOf(s.engine)), `${under.label} speaks its API version`);
  return s;
}

interface Settings {
  readonly networks: string[];
  readonly mac: string;
  /**
   * From API 1.44 on a MAC address is an endpoint's: the second network has one of its own too, up to Docker 27.
   * From Docker 28 (API 1.48) a MAC on another network than the container's own cannot be told from a generated
   * one and is not kept (docs/engines.md#mac-addresses).
   */
  readonly backMac: string | undefined;
  readonly port: string;
}

/** A container on two networks with aliases, a static MAC address on the first (API 1.44: on both) and a published port. */
async function networkedApp(t: Test, s: Scenario, mac: (n: number) => string, n: number): Promise<RunningOn & { settings: Settings }> {
  // A port of its own per test (nothing listens: the engines run without the userland proxy).
  const port = String(20000 + Math.floor(Math.random() * 10000));
  const api = await apiVersionOf(s.engine);
  const backMac = api >= 1.44 && api < 1.48 ? mac(n + 5) : undefined;
  const app = await appOnTwoNetworks(s, (fn) => t.teardown(fn), {
    index: true,
    ports: { '8080/tcp': port },
    front: { aliases: ['web', 'www'], mac: mac(n) },
    back: { aliases: ['api'], ...(backMac ? { mac: backMac } : {}) },
  });
  return { ...app, settings: { networks: app.networks, mac: mac(n), backMac, port } };
}

/** Every setting of `networkedApp` on the container now called `name`. */
async function assertSettings(t: Test, s: Scenario, name: string, settings: Settings): Promise<Docker.ContainerInspectInfo> {
  const info = await s.engine.getContainer(name).inspect();
  const [front, back] = settings.networks as [string, string];
  const networks = info.NetworkSettings.Networks;
  t.same(Object.keys(networks).sort(), [back, front].sort(), 'on both networks');
  t.ok(['web', 'www'].every((a) => networks[front]?.Aliases?.includes(a)), `aliases on ${front}`);
  t.ok(networks[back]?.Aliases?.includes('api'), `alias on ${back}`);
  t.equal(networks[front]?.MacAddress, settings.mac, 'the static MAC address');
  if (settings.backMac) t.equal(networks[back]?.MacAddress, settings.backMac, `the static MAC address on ${back}`);
  t.same(
    (info.HostConfig.PortBindings as Record<string, { HostIp: string; HostPort: string }[]>)['8080/tcp'],
    [{ HostIp: '127.0.0.1', HostPort: settings.port }],
    'the published port',
  );
  t.ok(info.State.Running, 'running');
  return info;
}

function runOnce(s: EngineScenario) {
  return runBinary(['--host', s.host, '--run-once', '--update-grace-period', '1s', '--stop-timeout', '5s', `${s.prefix}-.*`], {}, 120_000);
}

/**
 * Registers the engine scenarios on `ENGINE_SETUPS[index]` in the calling test file: one file per engine set-up, so
 * that tap's jobs run the engines side by side.
 */
export function engineScenarios(index: number): void {
  const under = ENGINE_SETUPS[index] as EngineSetup;
  // Distinct MAC addresses per engine: the two engines' bridges live side by side in one namespace.
  const mac = (n: number) => `02:00:5e:10:0${index}:0${n}`;

  t.test(`${under.label}: an update keeps network aliases, a static MAC address, a published port and both networks`, async (t) => {
    const s = await scenarioOn(t, under, `e2e-ver${index}-upd`);
    if (!s) return;
    // Multi-platform indexes throughout: the containerd store's image ID is the index digest, the classic store's the
    // platform config's; neither may give a false "update available", before or after the update.
    const app = await networkedApp(t, s, mac, 1);
    // Beside it on the same image, a container without a MAC address: the replacement must not pin the generated one.
    const plainName = `${s.prefix}-plain`;
    await runOnNetworks(s.engine, { name: plainName, image: app.image.ref, cmd: QUICK_STOP_CMD, networks: [{ name: app.settings.networks[0] as string }] });
    const before = await runOnce(s);
    t.match(before.stdout, /"updated":0,"failed":0/, 'nothing to update before the push');
    const v2 = await pushNext(s, app, { index: true });
    const run = await runOnce(s);
    t.equal(run.code, 0, run.stdout + run.stderr);
    t.match(run.stdout, /"msg":"run-once finished"/);
    t.match(run.stdout, /"updated":2,"failed":0/);
    const info = await assertSettings(t, s, app.name, app.settings);
    t.not(info.Id, app.container.id, 'a new container');
    t.equal(info.Image, (await s.engine.getImage(v2.ref).inspect()).Id, 'on the new image');
    const plain = await s.engine.getContainer(plainName).inspect();
    t.notOk((plain.Config as { MacAddress?: string }).MacAddress, 'no MAC address configured on the replacement of a container without one');
    const after = await runOnce(s);
    t.match(after.stdout, /"updated":0,"failed":0/, 'nothing to update after it');
  });

  t.test(`${under.label}: a running image whose tag moved on locally is still updated; a tag policy moves to the next tag`, async (t) => {
    const s = await scenarioOn(t, under, `e2e-ver${index}-moved`);
    if (!s) return;
    // The containerd store lists no RepoDigests for an image that lost its name (docs/engines.md).
    const app = await runningOn(s, 'app', { image: { index: true } });
    const v2 = await pushNext(s, app, { index: true });
    await pullImage(s.engine, v2.ref);
    // In the same run: a tag policy (docs/tags.md) on the store's digests, 1.0.0 → 1.1.0.
    const tagged = await runningOn(s, 'tagged', { image: { tag: '1.0.0', index: true }, run: { labels: { 'tidewatch.tag.policy': 'minor' } } });
    const next = await pushNext(s, tagged, { tag: '1.1.0', index: true });
    const run = await runOnce(s);
    t.equal(run.code, 0, run.stdout + run.stderr);
    t.match(run.stdout, /"updated":2,"failed":0/, 'both are updated');
    const info = await s.engine.getContainer(app.name).inspect();
    t.equal(info.Image, (await s.engine.getImage(v2.ref).inspect()).Id, 'on the new image');
    const moved = await s.engine.getContainer(tagged.name).inspect();
    t.equal(moved.Config.Image, next.ref, 'the tagged container moved to the next tag');
    t.equal(moved.Image, (await s.engine.getImage(next.ref).inspect()).Id, 'and runs its image');
  });

  t.test(`${under.label}: a new image that exits is rolled back with every setting`, async (t) => {
    const s = await scenarioOn(t, under, `e2e-ver${index}-rb`);
    if (!s) return;
    const app = await networkedApp(t, s, mac, 2);
    await pushNext(s, app, { marker: `${app.repo} bad`, cmd: ['/bin/false'] });
    const run = await runOnce(s);
    t.equal(run.code, 1, 'run-once exits 1: the update failed');
    t.match(run.stdout, /"updated":0,"failed":1/);
    const info = await assertSettings(t, s, app.name, app.settings);
    t.equal(info.Id, app.container.id, 'the old container is back under its name');
    const left = (await s.engine.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.includes(s.prefix)));
    t.equal(left.length, 1, 'no leftover container');
  });

  t.test(`${under.label}: a replacement killed halfway is repaired by the next start`, async (t) => {
    const s = await scenarioOn(t, under, `e2e-ver${index}-kill`);
    if (!s) return;
    const app = await networkedApp(t, s, mac, 3);
    // The new container never becomes healthy within the grace period: the service sits in the proof.
    const hour = 3600 * 1_000_000_000;
    await pushNext(s, app, { healthcheck: { Test: ['CMD', '/bin/true'], Interval: hour, StartPeriod: hour } });
    const args = ['--host', s.host, '--http-api-endpoints', 'update', '--http-api-token', TOKEN, '--stop-timeout', '5s', `${s.prefix}-.*`];
    const first = await startService([...args, '--update-grace-period', '2m']);
    t.teardown(() => first.stop('SIGKILL'));
    void call(`${first.url}/v1/update`, { method: 'POST', token: TOKEN }).catch(() => undefined);
    await waitFor(async () => {
      const holder = await s.engine.getContainer(app.name).inspect().catch(() => undefined);
      return holder !== undefined && holder.Id !== app.container.id;
    }, 30_000);
    await first.stop('SIGKILL');

    // It listens only after its start-up repair (remove the replacement, rename and start the old container on two
    // networks), which takes the engine well over the default 30 s when the machine's engines are all busy.
    const second = await startService([...args, '--update-grace-period', '1s'], {}, 120_000);
    t.teardown(() => second.stop('SIGKILL'));
    await second.stop('SIGTERM');
    const info = await assertSettings(t, s, app.name, app.settings);
    t.equal(info.Id, app.container.id, 'the old container is back under its name');
    const left = (await s.engine.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.includes(s.prefix)));
    t.equal(left.length, 1, 'nothing left renamed, staged or duplicated');
  });
}

/** Docker 28.5 is sid's, with containerd 2.1, and its image store is on (with Docker 29's API floor) or off as `store` says. */
export async function docker28EngineChecks(t: Test, scenarioOf: EngineSetup['scenario'], store: boolean): Promise<void> {
  const s = await scenarioOf(t, 'e2e-ver28-components');
  if (!s) return;
  const version = (await s.engine.version()) as { Version: string; MinAPIVersion: string; Components?: { Name: string; Version: string }[] };
  t.match(version.Version, /^28\.5\./, 'the engine');
  t.match(version.Components?.find((c) => c.Name === 'containerd')?.Version ?? '', /^2\.1\./, 'its containerd');
  const info = (await s.engine.info()) as { DriverStatus?: string[][] };
  t.equal(info.DriverStatus?.some(([k, v]) => k === 'driver-type' && v === 'io.containerd.snapshotter.v1') ?? false, store, `store ${store ? 'on' : 'off'}`);
  if (store) t.equal(version.MinAPIVersion, '1.44', "Docker 29's API floor");
}
