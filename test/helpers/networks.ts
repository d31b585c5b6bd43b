// Containers on user-defined networks, for the tests of what an update must keep (aliases, a static MAC
// address, published ports, several networks): scripts/test-env.sh runs every engine with --bridge=none and
// --iptables=false, so the networks are internal bridges (no gateway, no NAT) and nothing leaves the machine.
import type Docker from 'dockerode';
import { pullImage, pushImage } from './images.js';
import { QUICK_STOP_CMD, type RunningOn, type Scenario } from './scenarios.js';

export interface NetworkSpec {
  readonly name: string;
  readonly aliases?: string[];
  /** A static MAC address on this network. */
  readonly mac?: string;
}

export interface NetworkedRun {
  readonly name: string;
  readonly image: string;
  readonly networks: readonly NetworkSpec[];
  readonly cmd?: string[];
  readonly labels?: Record<string, string>;
  /** `8080/tcp` → a host port on 127.0.0.1 */
  readonly ports?: Record<string, string>;
}

/** Removes the network and, first, every container still on it (a network in use cannot go). */
async function removeNetwork(engine: Docker, name: string): Promise<void> {
  const network = engine.getNetwork(name);
  const info = (await network.inspect().catch(() => undefined)) as { Containers?: Record<string, unknown> } | undefined;
  if (!info) return;
  for (const id of Object.keys(info.Containers ?? {})) await engine.getContainer(id).remove({ force: true, v: true }).catch(() => undefined);
  await network.remove();
}

/**
 * Creates internal bridge networks named `names`, removed again by `teardown` with their containers. Every engine's
 * bridges take their subnets from one pool of the machine's routes (31 networks for all the engines on it): none
 * may be left behind.
 */
export async function createNetworks(engine: Docker, names: readonly string[], teardown: (fn: () => unknown) => void): Promise<void> {
  teardown(async () => {
    for (const name of names) await removeNetwork(engine, name);
  });
  for (const name of names) await engine.createNetwork({ Name: name, Driver: 'bridge', Internal: true });
}

/** The engine's API version as a number (1.41, 1.45). */
export async function apiVersionOf(engine: Docker): Promise<number> {
  return Number(((await engine.version()) as { ApiVersion: string }).ApiVersion);
}

/**
 * Creates and starts a container on its networks the way the CLI does on the engine: before API 1.44 on the first
 * (`docker run --network a --mac-address m`), connected to the others before it starts (`docker network connect`);
 * from 1.44 on with every network at create time (`docker run --network name=a,mac-address=m --network b`), each
 * endpoint with its own MAC address.
 */
export async function runOnNetworks(engine: Docker, run: NetworkedRun): Promise<Docker.Container> {
  const [first, ...others] = run.networks;
  if (!first) throw new Error('runOnNetworks: no network');
  const perEndpointMac = (await apiVersionOf(engine)) >= 1.44;
  const endpoint = (n: NetworkSpec): Docker.EndpointSettings => ({
    ...(n.aliases ? { Aliases: n.aliases } : {}),
    ...(n.mac && perEndpointMac ? { MacAddress: n.mac } : {}),
  });
  const ports = run.ports ?? {};
  const container = await engine.createContainer({
    name: run.name,
    Image: run.image,
    ...(run.cmd ? { Cmd: run.cmd } : {}),
    ...(run.labels ? { Labels: run.labels } : {}),
    ...(first.mac && !perEndpointMac ? { MacAddress: first.mac } : {}),
    ExposedPorts: Object.fromEntries(Object.keys(ports).map((port) => [port, {}])),
    HostConfig: {
      NetworkMode: first.name,
      PortBindings: Object.fromEntries(Object.entries(ports).map(([port, host]) => [port, [{ HostIp: '127.0.0.1', HostPort: host }]])),
    },
    NetworkingConfig: { EndpointsConfig: Object.fromEntries((perEndpointMac ? run.networks : [first]).map((n) => [n.name, endpoint(n)])) },
  });
  for (const n of perEndpointMac ? [] : others) {
    if (n.mac && !perEndpointMac) throw new Error('runOnNetworks: before API 1.44 only the first network takes a MAC address');
    await engine.getNetwork(n.name).connect({ Container: container.id, EndpointConfig: endpoint(n) });
  }
  await container.start();
  return container;
}

export interface TwoNetworksApp extends RunningOn {
  /** `${prefix}-front`, `${prefix}-back` */
  readonly networks: [string, string];
}

/**
 * Pushes `${prefix}/app` (marker `v1`), pulls it and runs it as `${prefix}-app` on two new networks, `front` then
 * `back`, with the endpoint settings given for each.
 */
export async function appOnTwoNetworks(
  s: Scenario,
  teardown: (fn: () => unknown) => void,
  spec: {
    front: Omit<NetworkSpec, 'name'>;
    back: Omit<NetworkSpec, 'name'>;
    labels?: Record<string, string>;
    ports?: Record<string, string>;
    /** Push the image as a multi-platform index (images.ts). */
    index?: boolean;
  },
): Promise<TwoNetworksApp> {
  const networks: [string, string] = [`${s.prefix}-front`, `${s.prefix}-back`];
  await createNetworks(s.engine, networks, teardown);
  const repo = `${s.prefix}/app`;
  const image = await pushImage({ registry: s.env.registry, repo, marker: `${repo} v1`, cmd: QUICK_STOP_CMD, ...(spec.index ? { index: true } : {}) });
  await pullImage(s.engine, image.ref);
  const name = `${s.prefix}-app`;
  const container = await runOnNetworks(s.engine, {
    name,
    image: image.ref,
    ...(spec.labels ? { labels: spec.labels } : {}),
    ...(spec.ports ? { ports: spec.ports } : {}),
    networks: [
      { name: networks[0], ...spec.front },
      { name: networks[1], ...spec.back },
    ],
  });
  return { name, repo, image, container, networks };
}
