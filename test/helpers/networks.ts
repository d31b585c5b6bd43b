// Containers on user-defined networks, for the tests of what an update must keep (aliases, a static MAC
// address, published ports, several networks): scripts/test-env.sh runs every engine with --bridge=none and
// --iptables=false, so the networks are internal bridges (no gateway, no NAT) and nothing leaves the machine.
import type Docker from 'dockerode';

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

/** Creates internal bridge networks named `names`, removed again by `teardown`. */
export async function createNetworks(engine: Docker, names: readonly string[], teardown: (fn: () => unknown) => void): Promise<void> {
  for (const name of names) await engine.createNetwork({ Name: name, Driver: 'bridge', Internal: true });
  teardown(async () => {
    for (const name of names) await engine.getNetwork(name).remove().catch(() => undefined);
  });
}

/** The engine's API version as a number (1.41, 1.45). */
export async function apiVersionOf(engine: Docker): Promise<number> {
  return Number(((await engine.version()) as { ApiVersion: string }).ApiVersion);
}

/**
 * Creates and starts a container on its first network, connected to the others before it starts, the way
 * `docker run --network a --mac-address m` then `docker network connect b` does it. The MAC address goes where
 * the engine's API reads it: the container's config before API 1.44, the endpoint's from 1.44 on.
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
    NetworkingConfig: { EndpointsConfig: { [first.name]: endpoint(first) } },
  });
  for (const n of others) {
    if (n.mac && !perEndpointMac) throw new Error('runOnNetworks: before API 1.44 only the first network takes a MAC address');
    await engine.getNetwork(n.name).connect({ Container: container.id, EndpointConfig: endpoint(n) });
  }
  await container.start();
  return container;
}
