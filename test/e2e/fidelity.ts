// Configuration fidelity (docs/replacement.md#what-is-kept): about thirty containers, each with settings a
// user gives on `docker run`, are updated in one run, and each one's configuration is compared before and
// after, field by field: Config, HostConfig, every network endpoint and the mounts, with only the fields
// listed in VOLATILE left out (each with its reason). A field an engine adds, or one a replacement starts to
// change, fails the comparison. It runs on every engine of the test matrix: another engine is one line in ENGINES,
// with the fields that engine cannot keep (each documented), expected to differ there and nowhere else.
import type Docker from 'dockerode';
import t, { type Test } from 'tap';
import { REPLACES_LABEL } from '../../plugins/docker/target.js';
import { pullImage, pushImage, runContainer, type RunOptions } from '../helpers/images.js';
import { apiVersionOf, createNetworks, runOnNetworks } from '../helpers/networks.js';
import { QUICK_STOP_CMD, docker26Scenario, docker28Scenario, docker28StoreScenario, mainScenario, type EngineScenario } from '../helpers/scenarios.js';
import { runBinary } from '../helpers/service.js';

type ScenarioOn = (t: Test, label: string) => Promise<EngineScenario | undefined>;

/**
 * A field an engine cannot keep, whatever a replacement does: the container (by name suffix), the field's
 * path (given the test's prefix) and where the docs say so. The suite expects exactly these to differ on
 * that engine, so a limit that goes away fails it too, and is then taken out here and in the docs.
 */
interface EngineLimit {
  readonly container: string;
  readonly path: (prefix: string) => string;
  readonly documented: string;
}

/**
 * Docker 28 (API 1.48) generates random MACs and shows the one in use: a MAC the user set on a network other
 * than the container's first cannot be told from a generated one, so the replacement gets a generated one there.
 */
const DOCKER_28_LIMITS: EngineLimit[] = [
  { container: 'two-networks', path: (prefix) => `.Networks.${prefix}-back.MacAddress`, documented: 'docs/engines.md#mac-addresses' },
];

const ENGINES = {
  docker20: ['Docker 20.10', mainScenario, []],
  docker26: ['Docker 26', docker26Scenario, []],
  'docker28-store': ['Docker 28.5 containerd store', docker28StoreScenario, DOCKER_28_LIMITS],
  'docker28-classic': ['Docker 28.5 classic store', docker28Scenario, DOCKER_28_LIMITS],
} satisfies Record<string, [string, ScenarioOn, EngineLimit[]]>;

export type FidelityEngine = keyof typeof ENGINES;

/** Both fidelity tests (an update field by field, a rollback's networks) on one engine of the matrix. */
export function fidelityTests(engine: FidelityEngine): void {
  const [label, scenarioOn, limits] = ENGINES[engine];
  updateKeepsEverySetting(label, scenarioOn, limits);
  rollbackLeavesNoAsideName(label, scenarioOn);
}

/** Fields that differ between two containers by nature, not by configuration. */
const VOLATILE = new Set([
  'EndpointID', // a new endpoint for a new container
  'IPAddress', // a dynamic address is the network's to give (a static one is IPAMConfig, compared)
  'GlobalIPv6Address',
]);

type Json = null | string | number | boolean | Json[] | { [key: string]: Json };

/** Every leaf of `value` as `path = value`, ids of the test's containers replaced by their names. */
function leaves(value: Json, ids: ReadonlyMap<string, string>, path = '', out: string[] = []): string[] {
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (!VOLATILE.has(key)) leaves(child, ids, `${path}.${key}`, out);
    }
    if (Object.keys(value).length === 0) out.push(`${path} = ${Array.isArray(value) ? '[]' : '{}'}`);
    return out;
  }
  let text = JSON.stringify(value);
  for (const [id, name] of ids) text = text.replaceAll(id, `<${name}>`).replaceAll(id.slice(0, 12), `<${name}>`);
  out.push(`${path} = ${text}`);
  return out;
}

/** What a user configured, as inspect shows it: Config, HostConfig, networks (a generated MAC left out), mounts. */
function configuration(info: Docker.ContainerInspectInfo, userMac: boolean): Json {
  const networks = Object.fromEntries(
    Object.entries(info.NetworkSettings.Networks).map(([name, endpoint]) => {
      const { MacAddress, ...rest } = endpoint as unknown as Record<string, Json>;
      return [name, userMac ? { ...rest, MacAddress: MacAddress ?? null } : rest];
    }),
  );
  const config = { ...(info.Config as unknown as Record<string, Json>) };
  if (!userMac) delete config['MacAddress'];
  // The label a replacement records the container it replaced by (docs/stopping.md): Tidewatch's bookkeeping,
  // not a setting of the user's; the replacement tests check its value.
  const { [REPLACES_LABEL]: _replaces, ...labels } = (info.Config.Labels ?? {}) as Record<string, string>;
  config['Labels'] = labels;
  return { Config: config, HostConfig: info.HostConfig as unknown as Json, Networks: networks, Mounts: info.Mounts as unknown as Json };
}

/** The test's containers' ids → names, so that an id in a setting reads the same before and after. */
async function idsOf(engine: Docker, prefix: string): Promise<Map<string, string>> {
  const listed = await engine.listContainers({ all: true });
  return new Map(listed.filter((c) => c.Names.some((n) => n.includes(prefix))).map((c) => [c.Id, (c.Names[0] ?? '').replace(/^\//, '').replace(`${prefix}-`, '')]));
}

const MiB = 1024 * 1024;

/** One container per setting (or small group of settings) a user gives; the name says which. */
function fleet(image: string, entrypointImage: string, volume: string): Record<string, Omit<RunOptions, 'name' | 'image'> & { image?: string }> {
  const host = (hostConfig: Docker.HostConfig) => ({ hostConfig });
  return {
    'restart-always': { restartPolicy: 'always' },
    'restart-on-failure': { restartPolicy: { Name: 'on-failure', MaximumRetryCount: 3 } },
    'restart-unless-stopped': { restartPolicy: 'unless-stopped' },
    healthcheck: { healthcheck: { Test: ['CMD', '/bin/true'], Interval: 500_000_000, Timeout: 2_000_000_000, Retries: 2 } },
    'no-healthcheck': { healthcheck: { Test: ['NONE'] } },
    memory: host({ Memory: 64 * MiB, MemoryReservation: 32 * MiB }),
    cpu: host({ CpuShares: 512, NanoCpus: 500_000_000 }),
    'pids-limit': host({ PidsLimit: 64 }),
    capabilities: host({ CapAdd: ['NET_ADMIN'], CapDrop: ['MKNOD'] }),
    ulimits: host({ Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }] }),
    sysctls: host({ Sysctls: { 'kernel.shm_rmid_forced': '1' } }),
    'named-volume': host({ Mounts: [{ Type: 'volume', Source: volume, Target: '/data' }] }),
    tmpfs: host({ Tmpfs: { '/scratch': 'size=1m' } }),
    devices: host({ Devices: [{ PathOnHost: '/dev/null', PathInContainer: '/dev/xnull', CgroupPermissions: 'rwm' }] }),
    dns: host({ Dns: ['127.0.0.53'], DnsSearch: ['example.test'], DnsOptions: ['ndots:2'] }),
    'extra-hosts': host({ ExtraHosts: ['db.test:127.0.0.2'] }),
    'read-only': host({ ReadonlyRootfs: true }),
    'security-opt': host({ SecurityOpt: ['no-new-privileges'] }),
    'shm-size': host({ ShmSize: 128 * MiB }),
    'oom-score': host({ OomScoreAdj: 100 }),
    'group-add': host({ GroupAdd: ['1234'] }),
    'log-config': host({ LogConfig: { Type: 'json-file', Config: { 'max-size': '1m' } } }),
    hostname: { extra: { Hostname: 'box-1', Domainname: 'example.test' } },
    'default-hostname': {},
    'entrypoint-cleared': { image: entrypointImage, entrypoint: [''], cmd: QUICK_STOP_CMD },
    user: { user: '1000:1000', workingDir: '/tmp' },
    'env-labels': { env: ['A=1', 'B=two words'], labels: { 'acme.team': 'core' } },
    stop: { stopSignal: 'SIGINT', stopTimeout: 3 },
    'ipc-parent': host({ IpcMode: 'shareable' }),
  };
}

/** Runs the fleet; returns each container's name suffix and whether it has a user MAC address. */
async function runFleet(t: Test, s: EngineScenario, image: string, entrypointImage: string): Promise<Map<string, boolean>> {
  const macs = new Map<string, boolean>();
  const volume = `${s.prefix}-vol`;
  await s.engine.createVolume({ Name: volume });
  t.teardown(() => s.engine.getVolume(volume).remove().catch(() => undefined));
  for (const [suffix, options] of Object.entries(fleet(image, entrypointImage, volume))) {
    await runContainer(s.engine, { name: `${s.prefix}-${suffix}`, image, cmd: QUICK_STOP_CMD, ...options });
    macs.set(suffix, false);
  }
  const parent = `container:${s.prefix}-ipc-parent`;
  await runContainer(s.engine, {
    name: `${s.prefix}-namespace-child`, image, cmd: QUICK_STOP_CMD,
    hostConfig: { NetworkMode: parent, IpcMode: parent, PidMode: parent } as Docker.HostConfig,
  });
  macs.set('namespace-child', false);

  // Two networks with aliases, a static IP, a user MAC address and a published port.
  const [front, back] = [`${s.prefix}-front`, `${s.prefix}-back`];
  await createNetworks(s.engine, [front, back], (fn) => t.teardown(fn));
  const modern = (await apiVersionOf(s.engine)) >= 1.44;
  const mac = (n: number) => `02:aa:bb:cc:${modern ? '26' : '20'}:${String(n).padStart(2, '0')}`;
  await runOnNetworks(s.engine, {
    name: `${s.prefix}-two-networks`, image, cmd: QUICK_STOP_CMD,
    networks: [{ name: front, aliases: ['web', 'www'], mac: mac(1) }, { name: back, aliases: ['api'], ...(modern ? { mac: mac(2) } : {}) }],
    ports: { '8080/tcp': String(20000 + Math.floor(Math.random() * 10000)) },
  });
  macs.set('two-networks', true);
  // Docker 28 (API 1.48) lets a user rank the networks' gateways: `--network name=x,gw-priority=n`.
  if ((await apiVersionOf(s.engine)) >= 1.48) {
    const ranked = await s.engine.createContainer({
      name: `${s.prefix}-gw-priority`, Image: image, Cmd: QUICK_STOP_CMD, HostConfig: { NetworkMode: front },
      NetworkingConfig: { EndpointsConfig: { [front]: { GwPriority: 10 }, [back]: { GwPriority: -5 } } as unknown as Docker.EndpointsConfig },
    });
    await ranked.start();
    macs.set('gw-priority', false);
  }
  // A static IP needs a network whose subnet the user chose: one outside the engines' default pools.
  const fixed = `${s.prefix}-fixed`;
  const octet = 1 + Math.floor(Math.random() * 250);
  t.teardown(async () => {
    await s.engine.getContainer(`${s.prefix}-static-ip`).remove({ force: true }).catch(() => undefined);
    await s.engine.getNetwork(fixed).remove().catch(() => undefined);
  });
  await s.engine.createNetwork({ Name: fixed, Driver: 'bridge', Internal: true, IPAM: { Config: [{ Subnet: `10.213.${octet}.0/24` }] } });
  const staticIp = `10.213.${octet}.77`;
  await runContainer(s.engine, {
    name: `${s.prefix}-static-ip`, image, cmd: QUICK_STOP_CMD, hostConfig: { NetworkMode: 'none' },
    start: false,
  }).then(async (c) => {
    await s.engine.getNetwork('none').disconnect({ Container: c.id });
    await s.engine.getNetwork(fixed).connect({ Container: c.id, EndpointConfig: { IPAMConfig: { IPv4Address: staticIp }, Aliases: ['fixed'] } });
    await c.start();
  });
  macs.set('static-ip', false);
  return macs;
}

function updateKeepsEverySetting(label: string, scenarioOn: ScenarioOn, limits: readonly EngineLimit[]): void {
  t.test(`${label}: an update keeps every setting of thirty containers, field by field`, async (t) => {
    const s = await scenarioOn(t, `e2e-fidelity-${label.replace(/\D/g, '')}`);
    if (!s) return;
    const repo = `${s.prefix}/app`;
    const epRepo = `${s.prefix}/ep`;
    const v1 = await pushImage({ registry: s.env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
    // An image ENTRYPOINT that exits: brought back over `--entrypoint ""`, the update would be rolled back.
    const ep1 = await pushImage({ registry: s.env.registry, repo: epRepo, marker: `${epRepo} v1`, cmd: QUICK_STOP_CMD, entrypoint: ['/bin/false'] });
    await pullImage(s.engine, v1.ref);
    await pullImage(s.engine, ep1.ref);
    const macs = await runFleet(t, s, v1.ref, ep1.ref);
    const before = new Map<string, string[]>();
    const beforeIds = await idsOf(s.engine, s.prefix);
    for (const suffix of macs.keys()) {
      before.set(suffix, leaves(configuration(await s.engine.getContainer(`${s.prefix}-${suffix}`).inspect(), macs.get(suffix) === true), beforeIds));
    }

    await pushImage({ registry: s.env.registry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD });
    await pushImage({ registry: s.env.registry, repo: epRepo, marker: `${epRepo} v2`, cmd: QUICK_STOP_CMD, entrypoint: ['/bin/false'] });
    const run = await runBinary(
      ['--host', s.host, '--run-once', '--update-grace-period', '1s', '--stop-timeout', '2s', '--update-concurrency', '4', `${s.prefix}-.*`],
      {},
      300_000,
    );
    t.equal(run.code, 0, run.stderr);
    t.match(run.stdout, new RegExp(`"updated":${macs.size},"failed":0`), 'every container updated');

    const afterIds = await idsOf(s.engine, s.prefix);
    t.equal(afterIds.size, macs.size, 'no container left aside');
    for (const [suffix, userMac] of macs) {
      const info = await s.engine.getContainer(`${s.prefix}-${suffix}`).inspect();
      t.ok(info.State.Running, `${suffix}: running`);
      t.not(beforeIds.get(info.Id), suffix, `${suffix}: replaced`);
      const after = leaves(configuration(info, userMac), afterIds);
      const old = before.get(suffix) ?? [];
      const limited = limits.filter((l) => l.container === suffix);
      const beyondLimits = (line: string) => !limited.some((l) => line.startsWith(`${l.path(s.prefix)} = `));
      const added = after.filter((l) => !old.includes(l));
      const lost = old.filter((l) => !after.includes(l));
      t.same(added.filter(beyondLimits), [], `${suffix}: no setting changed or added`);
      t.same(lost.filter(beyondLimits), [], `${suffix}: no setting lost`);
      for (const limit of limited) {
        const path = limit.path(s.prefix);
        t.ok(lost.some((l) => l.startsWith(`${path} = `)), `${suffix}: ${path} not kept, an engine limit (${limit.documented})`);
      }
    }
  });
}

/** A container's aliases and DNS names (API 1.45+) on `network`, each once, sorted. */
function networkNames(info: Docker.ContainerInspectInfo, network: string): string[] {
  const endpoint = info.NetworkSettings.Networks[network] as unknown as { Aliases?: string[] | null; DNSNames?: string[] | null };
  return [...new Set([...(endpoint.Aliases ?? []), ...(endpoint.DNSNames ?? [])])].sort();
}

function rollbackLeavesNoAsideName(label: string, scenarioOn: ScenarioOn): void {
  t.test(`${label}: a rollback leaves no aside name on the networks and starts the old container once`, async (t) => {
    const s = await scenarioOn(t, `e2e-fidelity-rb-${label.replace(/\D/g, '')}`);
    if (!s) return;
    const repo = `${s.prefix}/app`;
    const v1 = await pushImage({ registry: s.env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD });
    await pullImage(s.engine, v1.ref);
    const net = `${s.prefix}-net`;
    await createNetworks(s.engine, [net], (fn) => t.teardown(fn));
    const countingStarts = ['/bin/sh', '-c', "echo started >> /tmp/starts; trap 'exit 0' TERM; sleep 3600 & wait"];
    const old = await runOnNetworks(s.engine, { name: `${s.prefix}-app`, image: v1.ref, cmd: countingStarts, networks: [{ name: net, aliases: ['web'] }] });
    const namesBefore = networkNames(await old.inspect(), net);
    // The new image's ENTRYPOINT exits at once (whatever the command): rolled back.
    await pushImage({ registry: s.env.registry, repo, marker: `${repo} v2`, cmd: QUICK_STOP_CMD, entrypoint: ['/bin/false'] });
    const run = await runBinary(['--host', s.host, '--run-once', '--update-grace-period', '1s', '--stop-timeout', '2s', `${s.prefix}-.*`], {}, 120_000);
    t.match(run.stdout, /"failed":1/, 'the update failed');
    const info = await s.engine.getContainer(`${s.prefix}-app`).inspect();
    t.equal(info.Id, old.id, 'the old container is back');
    t.ok(info.State.Running);
    const names = networkNames(info, net);
    t.ok(names.includes('web'), 'its alias');
    t.same(names.filter((n) => n.includes('--tidewatch-')), [], 'no aside name among its aliases and DNS names');
    // Docker 28 keeps a stopped container's DNSNames through a rename and rebuilds them at its start (and at
    // the rename of a running one): renamed back before its start, it answers to exactly what it did.
    t.same(names, namesBefore, 'the same aliases and DNS names as before the update');
    // Each start of the old container appended a line: its first start, and the one after its stop.
    const exec = await s.engine.getContainer(old.id).exec({ Cmd: ['cat', '/tmp/starts'], AttachStdout: true });
    const output = await exec.start({ hijack: true, stdin: false });
    let text = '';
    for await (const chunk of output) text += (chunk as Buffer).toString('latin1');
    t.equal((text.match(/started/g) ?? []).length, 2, 'started once after its stop, never restarted in place');
  });
}
