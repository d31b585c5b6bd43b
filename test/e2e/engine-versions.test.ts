// The Docker users run: the same end-to-end scenarios on bookworm's Docker 20.10 (API 1.41) and on Debian
// trixie's Docker 26.1 (API 1.45, scripts/test-env.sh), through the built binary. From API 1.44 on the engine
// takes every network at create time and the MAC address per network endpoint (docs/compose.md#docker-versions):
// an update must keep network aliases, a static MAC address, a published port and several
// networks on both; a new image that exits is rolled back with all of them; a replacement killed halfway is
// repaired by the next start.
import type Docker from 'dockerode';
import t, { type Test } from 'tap';
import { waitFor } from '../helpers/env.js';
import { apiVersionOf, appOnTwoNetworks } from '../helpers/networks.js';
import { docker26Scenario, mainScenario, pushNext, type EngineScenario, type RunningOn, type Scenario } from '../helpers/scenarios.js';
import { call, runBinary, startService } from '../helpers/service.js';

const TOKEN = 'e2e-engine-versions-token-0123';

interface EngineUnderTest {
  readonly label: string;
  /** A scenario on the engine, or undefined when the test was skipped. */
  readonly scenario: (t: Test, label: string) => Promise<EngineScenario | undefined>;
  /** What the engine must speak: 20.10 is 1.41, 26.1 is 1.45. */
  readonly api: (version: number) => boolean;
}

const ENGINES: EngineUnderTest[] = [
  { label: 'Docker 20.10', scenario: mainScenario, api: (v) => v === 1.41 },
  { label: 'Docker 26', scenario: docker26Scenario, api: (v) => v >= 1.45 },
];

/** A scenario on `under`'s engine, which speaks the API version it should. */
async function scenarioOn(t: Test, under: EngineUnderTest, label: string): Promise<EngineScenario | undefined> {
  const s = await under.scenario(t, label);
  if (s) t.ok(under.api(await apiVersionOf(s.engine)), `${under.label} speaks its API version`);
  return s;
}

interface Settings {
  readonly networks: string[];
  readonly mac: string;
  /** From API 1.44 on a MAC address is an endpoint's: the second network has one of its own too. */
  readonly backMac: string | undefined;
  readonly port: string;
}

/** A container on two networks with aliases, a static MAC address on the first (API 1.44: on both) and a published port. */
async function networkedApp(t: Test, s: Scenario, mac: (n: number) => string, n: number): Promise<RunningOn & { settings: Settings }> {
  // A port of its own per test (nothing listens: the engines run without the userland proxy).
  const port = String(20000 + Math.floor(Math.random() * 10000));
  const backMac = (await apiVersionOf(s.engine)) >= 1.44 ? mac(n + 5) : undefined;
  const app = await appOnTwoNetworks(s, (fn) => t.teardown(fn), {
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

ENGINES.forEach((under, index) => {
  // Distinct MAC addresses per engine: the two engines' bridges live side by side in one namespace.
  const mac = (n: number) => `02:00:5e:10:0${index}:0${n}`;

  t.test(`${under.label}: an update keeps network aliases, a static MAC address, a published port and both networks`, async (t) => {
    const s = await scenarioOn(t, under, `e2e-ver${index}-upd`);
    if (!s) return;
    const app = await networkedApp(t, s, mac, 1);
    const v2 = await pushNext(s, app);
    const run = await runOnce(s);
    t.equal(run.code, 0, run.stdout + run.stderr);
    t.match(run.stdout, /"msg":"run-once finished"/);
    t.match(run.stdout, /"updated":1,"failed":0/);
    const info = await assertSettings(t, s, app.name, app.settings);
    t.not(info.Id, app.container.id, 'a new container');
    t.equal(info.Image, (await s.engine.getImage(v2.ref).inspect()).Id, 'on the new image');
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

    const second = await startService([...args, '--update-grace-period', '1s']);
    t.teardown(() => second.stop('SIGKILL'));
    await second.stop('SIGTERM');
    const info = await assertSettings(t, s, app.name, app.settings);
    t.equal(info.Id, app.container.id, 'the old container is back under its name');
    const left = (await s.engine.listContainers({ all: true })).filter((c) => c.Names.some((n) => n.includes(s.prefix)));
    t.equal(left.length, 1, 'nothing left renamed, staged or duplicated');
  });
});

t.test("Docker 26 is trixie's 26.1 with containerd 1.7, beside bookworm's runc", async (t) => {
  const s = await docker26Scenario(t, 'e2e-ver-components');
  if (!s) return;
  const version = (await s.engine.version()) as { Version: string; Components?: { Name: string; Version: string }[] };
  const component = (name: string) => version.Components?.find((c) => c.Name === name)?.Version ?? '';
  t.match(version.Version, /^26\.1\./, 'the engine');
  t.match(component('containerd'), /^1\.7\./, 'its containerd');
  t.match(component('runc'), /^1\.1\./, "bookworm's runc");
});
