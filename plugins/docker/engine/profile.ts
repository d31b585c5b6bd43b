// The engine profile (docs/engines.md#the-engine-profile): one object per engine, made once from what the engine
// reports (`GET /version`: its kind, version and API version; `GET /info`: its image store), that answers each
// difference between engines by name. The runtime's parts ask the profile (`profile.keepsImageIdAsManifestDigest`,
// `profile.showsOwnDefaultsInInspect`, …) and never the engine's kind or version themselves: a new difference is
// one more answer here, named in docs/engines.md (Docker versions) or docs/podman.md (Podman).
import { imageStoreOf, type EngineInfo, type ImageStore } from '../image/store.js';

/** `GET /version` as both engines answer it; Podman names itself in `Components`. */
export interface EngineVersion {
  readonly Version?: string;
  readonly ApiVersion?: string;
  readonly Components?: readonly { readonly Name?: string }[] | null;
}

export type EngineKind = 'docker' | 'podman';

export interface EngineProfile {
  /** Docker Engine, or Podman's Docker-compatible API (docs/podman.md). */
  readonly kind: EngineKind;
  /** The engine's version as it reports it (`28.5.1`, Podman's `5.4.2`); empty when it reports none. */
  readonly version: string;
  /** `major.minor` of the API in use: the pinned one (`--api-version`), else what the engine speaks. */
  readonly apiVersion: string;
  /**
   * Where the engine keeps its images (image/store.ts): `unknown` while `/info` cannot be read (a socket proxy
   * without INFO=1), which only costs check errors where a digest is missing, never a wrong answer. Podman: `classic`.
   */
  readonly imageStore: ImageStore;

  // Images (docs/engines.md#the-containerd-image-store).
  /**
   * The image ID is the digest of what was pulled (the manifest or the multi-platform index), so it stands for the
   * running image's registry digest where `RepoDigests` lists none: the containerd image store.
   */
  readonly keepsImageIdAsManifestDigest: boolean;
  /**
   * The engine reports image changes on its event stream reliably, so image facts may be kept between discoveries
   * (image/facts-cache.ts): Docker. Podman's depends on its settings (docs/podman.md).
   */
  readonly reportsImageEvents: boolean;
  /**
   * A forced image removal also removes every container of the image (Podman): cleanup then removes each tag
   * unforced instead (image/cleanup.ts, docs/podman.md).
   */
  readonly forcedImageRemovalRemovesContainers: boolean;

  // Containers as an inspect shows them (docs/podman.md#differences-and-how-tidewatch-handles-them).
  /**
   * The inspect shows values the engine added itself (environment, working directory, rlimits under their kernel
   * names, a numeric stop signal, the `oci` runtime, UTS mode `private`), which a replacement must not copy as the
   * user's (replace/podman-create.ts): Podman.
   */
  readonly showsOwnDefaultsInInspect: boolean;
  /** A container created without a stop timeout shows StopTimeout 0, which then means "not set" (Podman). */
  readonly showsUnsetStopTimeoutAsZero: boolean;
  /**
   * A `--cpus` limit shows twice, as NanoCpus and as CpuQuota/CpuPeriod, and a create refuses the two together
   * (Podman): `--cpu-copy-mode auto` drops NanoCpus (docs/podman.md#cpu-limits-and-memory-swappiness).
   */
  readonly showsCpuLimitTwice: boolean;

  // Networks by API version (docs/engines.md#mac-addresses).
  /** A create takes every network endpoint at once (API 1.44); before, the others are connected before start. */
  readonly createsWithSeveralNetworks: boolean;
  /** A create takes an endpoint's MAC address (API 1.44). */
  readonly takesEndpointMacAddress: boolean;
  /** A generated MAC is random, not `02:42:` + the IP (API 1.48, Docker 28): only `Config.MacAddress` tells a configured one. */
  readonly generatesRandomMacs: boolean;
  /** An endpoint has a gateway priority (API 1.48, Docker 28: `--network name=x,gw-priority=n`). */
  readonly supportsGatewayPriority: boolean;
}

/** True when the engine is Podman (`Components` holds "Podman Engine"; Docker's says "Engine"). */
export function isPodmanVersion(version: EngineVersion): boolean {
  return (version.Components ?? []).some((component) => /podman/i.test(component.Name ?? ''));
}

/** Whether `version` (`1.44`, `v1.44`) is at least `wanted`. */
export function apiAtLeast(version: string, wanted: string): boolean {
  const [a = 0, b = 0] = version.replace(/^v/, '').split('.').map(Number);
  const [c = 0, d = 0] = wanted.split('.').map(Number);
  return a > c || (a === c && b >= d);
}

export interface EngineFacts {
  /** The engine's `GET /version`. */
  readonly version: EngineVersion;
  /** The engine's `GET /info`, or undefined when it could not be read (the store is then `unknown`). */
  readonly info?: EngineInfo | undefined;
  /** `--api-version`, when the API version is pinned. */
  readonly pinnedApiVersion?: string | undefined;
}

/** The profile of an engine from what it reports. */
export function engineProfile(facts: EngineFacts): EngineProfile {
  const podman = isPodmanVersion(facts.version);
  const apiVersion = facts.pinnedApiVersion ? facts.pinnedApiVersion.replace(/^v/, '') : (facts.version.ApiVersion ?? '');
  const imageStore: ImageStore = podman ? 'classic' : facts.info ? imageStoreOf(facts.info) : 'unknown';
  return Object.freeze({
    kind: podman ? 'podman' : 'docker',
    version: facts.version.Version ?? '',
    apiVersion,
    imageStore,
    keepsImageIdAsManifestDigest: imageStore === 'containerd',
    reportsImageEvents: !podman,
    forcedImageRemovalRemovesContainers: podman,
    showsOwnDefaultsInInspect: podman,
    showsUnsetStopTimeoutAsZero: podman,
    showsCpuLimitTwice: podman,
    createsWithSeveralNetworks: apiAtLeast(apiVersion, '1.44'),
    takesEndpointMacAddress: apiAtLeast(apiVersion, '1.44'),
    generatesRandomMacs: apiAtLeast(apiVersion, '1.48'),
    supportsGatewayPriority: apiAtLeast(apiVersion, '1.48'),
  } satisfies EngineProfile);
}
