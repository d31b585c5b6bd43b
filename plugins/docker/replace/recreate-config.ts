// The create options of a replacement: the old container's configuration as the user gave it. The
// inspected Config mixes the user's settings with the old image's defaults; those defaults are taken out
// so that the new image's defaults apply (a new CMD, ENV or HEALTHCHECK in the image takes effect), as
// Watchtower does. HostConfig is copied whole; every network endpoint keeps its aliases and static IPs.
import type Docker from 'dockerode';
import { SELF_LABELS } from '../self/labels.js';
import { shortId } from './aside-names.js';
import { podmanCreateOptions } from './podman-create.js';
import type { ImageDefaults, InspectedConfig } from './inspected.js';
import type { EngineProfile } from '../engine/profile.js';

export type { ImageDefaults, InspectedConfig } from './inspected.js';

type Endpoint = Docker.ContainerInspectInfo['NetworkSettings']['Networks'][string] & {
  DriverOpts?: Record<string, string> | null;
  /** API 1.48 (Docker 28): `--network name=x,gw-priority=n`, which network's gateway is the default route. */
  GwPriority?: number;
};

/** An endpoint's create settings: dockerode's type predates `GwPriority`. */
type EndpointSettings = Docker.EndpointSettings & { GwPriority?: number };

function sameList(a: unknown, b: unknown): boolean {
  const list = (v: unknown) => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
  return JSON.stringify(list(a)) === JSON.stringify(list(b));
}

function withoutKeys(own: Record<string, object> | null | undefined, image: Record<string, object> | null | undefined) {
  const result: Record<string, object> = {};
  for (const [key, value] of Object.entries(own ?? {})) if (!(key in (image ?? {}))) result[key] = value;
  return result;
}

/** Image labels are dropped unless the user changed them; the own-container markers always stay. */
function ownLabels(labels: Record<string, string> | null | undefined, image: Record<string, string> | null | undefined) {
  const keep = new Set<string>(SELF_LABELS);
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels ?? {})) {
    if (keep.has(key) || image?.[key] !== value) result[key] = value;
  }
  return result;
}

/** Zeroes each health check field equal to the image's; undefined when nothing of the user's is left. */
function ownHealthcheck(own: Docker.HealthConfig | undefined, image: Docker.HealthConfig | null | undefined) {
  if (!own) return undefined;
  const result: Docker.HealthConfig = {};
  let any = false;
  for (const key of ['Test', 'Interval', 'Timeout', 'StartPeriod', 'StartInterval', 'Retries'] as const) {
    const value = own[key];
    const same = key === 'Test' ? sameList(value, image?.[key]) : value === image?.[key];
    if (value === undefined || value === null || same || (key !== 'Test' && value === 0)) continue;
    (result as Record<string, unknown>)[key] = value;
    any = true;
  }
  return any ? result : undefined;
}

/** `/db:/web/db` (how inspect shows a link) → `db:db` (how create takes it); malformed links are dropped. */
export function normaliseLinks(links: readonly string[] | null | undefined): string[] {
  const result: string[] = [];
  for (const link of links ?? []) {
    const [name, alias] = link.split(':');
    const target = name?.replace(/^\//, '');
    const short = alias?.split('/').pop() || target;
    if (target) result.push(`${target}:${short}`);
  }
  return result;
}

/**
 * Whether an endpoint's MAC address is the user's (docs/engines.md#mac-addresses). An inspect shows the MAC in use,
 * configured or generated alike. Up to Docker 27 (API 1.47) a generated one is `02:42:` + the IP; from Docker 28
 * (API 1.48) it is random, so only the deprecated `Config.MacAddress`, which the engine fills with the MAC configured
 * on the container's own network (`--mac-address`, `--network name=x,mac-address=…`) and leaves empty otherwise,
 * tells; on the other networks a MAC of Docker 28+ cannot be told from a generated one and is not kept: a generated
 * MAC pinned as configuration is drift, and ends in duplicates (moby #47171).
 */
function isConfiguredMac(mac: string | undefined, primary: boolean, configMac: string | undefined, profile: RecreateProfile): boolean {
  if (!mac) return false;
  if (primary && configMac) return configMac.toLowerCase() === mac.toLowerCase();
  return !profile.generatesRandomMacs && !/^02:42:/i.test(mac);
}

/** The engine gives a container without a hostname of its own its short id. */
export function isDefaultHostname(container: Docker.ContainerInspectInfo): boolean {
  return container.Config.Hostname === shortId(container.Id);
}

/** What a replacement's create options depend on in the engine's profile (engine/profile.ts). */
export type RecreateProfile = Pick<
  EngineProfile,
  'showsOwnDefaultsInInspect' | 'createsWithSeveralNetworks' | 'takesEndpointMacAddress' | 'generatesRandomMacs' | 'supportsGatewayPriority'
>;

export interface RecreateOptions {
  /** Image name for the new container (the target's image reference). */
  readonly image: string;
  /** The engine's answers (docs/engines.md#the-engine-profile): endpoint MACs, gateway priority, Podman's own values. */
  readonly profile: RecreateProfile;
}

/** Every network endpoint's settings: aliases (minus the old short id), links, static IPs, driver options, gateway priority. */
export function endpointsOf(container: Docker.ContainerInspectInfo, options: RecreateOptions): Docker.EndpointsConfig {
  const hostMode = container.HostConfig.NetworkMode === 'host';
  const configMac = (container.Config as InspectedConfig).MacAddress;
  const result: Docker.EndpointsConfig = {};
  for (const [name, raw] of Object.entries(container.NetworkSettings.Networks ?? {})) {
    const endpoint = raw as Endpoint;
    const settings: EndpointSettings = {};
    if (endpoint.IPAMConfig) settings.IPAMConfig = endpoint.IPAMConfig;
    if (endpoint.Links) settings.Links = endpoint.Links;
    const aliases = ((endpoint.Aliases as string[] | null) ?? []).filter((a) => a !== shortId(container.Id));
    if (!hostMode && aliases.length > 0) settings.Aliases = aliases;
    if (endpoint.DriverOpts) settings.DriverOpts = endpoint.DriverOpts;
    // 0 is the engine's default; engines before API 1.48 have no such setting.
    if (endpoint.GwPriority && options.profile.supportsGatewayPriority) settings.GwPriority = endpoint.GwPriority;
    const primary = name === container.HostConfig.NetworkMode;
    if (!hostMode && options.profile.takesEndpointMacAddress && isConfiguredMac(endpoint.MacAddress, primary, configMac, options.profile)) {
      settings.MacAddress = endpoint.MacAddress;
    }
    result[name] = settings;
  }
  return result;
}

/** The create options of the replacement (without a name: the caller chooses it). */
export function recreateOptions(
  container: Docker.ContainerInspectInfo,
  imageDefaults: ImageDefaults | undefined,
  options: RecreateOptions,
): Docker.ContainerCreateOptions {
  const config = container.Config as InspectedConfig;
  const image = imageDefaults ?? {};
  const hostConfig: Docker.HostConfig = { ...container.HostConfig };
  const create: Docker.ContainerCreateOptions = { ...config } as Docker.ContainerCreateOptions;

  const imageEnv = new Set(image.Env ?? []);
  create.Env = (config.Env ?? []).filter((entry) => !imageEnv.has(entry));
  create.Labels = ownLabels(config.Labels, image.Labels);
  create.Volumes = withoutKeys(config.Volumes, image.Volumes);
  const ports = withoutKeys(config.ExposedPorts, image.ExposedPorts);
  for (const port of Object.keys(hostConfig.PortBindings ?? {})) ports[port] = {};
  create.ExposedPorts = ports;
  if (config.WorkingDir === (image.WorkingDir ?? '')) delete create.WorkingDir;
  if (config.User === (image.User ?? '')) delete create.User;
  if (config.StopSignal !== undefined && config.StopSignal === image.StopSignal) delete create.StopSignal;
  if (sameList(config.Entrypoint, image.Entrypoint)) {
    delete create.Entrypoint;
    if (sameList(config.Cmd, image.Cmd)) delete create.Cmd;
  } else if (sameList(config.Entrypoint, [])) {
    // `--entrypoint ""` over an image ENTRYPOINT: inspect shows none, and an empty create field would
    // bring the image's back. [""] is how the CLI asks for none (docs/replacement.md#what-is-kept).
    create.Entrypoint = [''];
  }
  const healthcheck = ownHealthcheck(config.Healthcheck, image.Healthcheck);
  if (healthcheck) create.Healthcheck = healthcheck;
  else delete create.Healthcheck;
  // The engine refuses a hostname next to `container:` networking or a UTS mode. A default hostname (the
  // container's own short id) stays default: copied, the old id would become the new container's name on
  // its networks (docs/replacement.md#what-is-kept).
  const networkMode = hostConfig.NetworkMode ?? '';
  if (networkMode.startsWith('container:') || hostConfig.UTSMode || isDefaultHostname(container)) delete create.Hostname;
  create.Image = options.image;

  if (hostConfig.Links) hostConfig.Links = normaliseLinks(hostConfig.Links);
  // A CID file is written by the CLI that created the old container; the engine must not be asked again.
  delete (hostConfig as { ContainerIDFile?: string }).ContainerIDFile;
  hostConfig.Devices = (hostConfig.Devices as Docker.DeviceMapping[] | null | undefined)?.map((device) => ({
    ...device,
    CgroupPermissions: device.CgroupPermissions || 'rwm',
  }));
  create.HostConfig = hostConfig;
  create.NetworkingConfig = { EndpointsConfig: endpointsOf(container, options) };
  return options.profile.showsOwnDefaultsInInspect ? podmanCreateOptions(create, container, imageDefaults) : create;
}

/**
 * Before API 1.44 (`createsWithSeveralNetworks`) the engine takes one network at create time; the others are connected before start.
 * Returns the create options to use and the endpoints to connect afterwards.
 */
export function splitNetworks(
  create: Docker.ContainerCreateOptions,
  profile: Pick<EngineProfile, 'createsWithSeveralNetworks'>,
): { create: Docker.ContainerCreateOptions; connectLater: [string, Docker.EndpointSettings][] } {
  const endpoints = Object.entries(create.NetworkingConfig?.EndpointsConfig ?? {});
  if (profile.createsWithSeveralNetworks || endpoints.length <= 1) return { create, connectLater: [] };
  const mode = create.HostConfig?.NetworkMode;
  const first = endpoints.find(([name]) => name === mode) ?? (endpoints[0] as [string, Docker.EndpointSettings]);
  return {
    create: { ...create, NetworkingConfig: { EndpointsConfig: { [first[0]]: first[1] } } },
    connectLater: endpoints.filter(([name]) => name !== first[0]),
  };
}
