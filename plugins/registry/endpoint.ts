// Where a registry lives on the wire. Image references name registries the way users write them
// (`docker.io`, `127.0.0.1:5101`); HTTP needs a base URL. Docker Hub's API host differs from its
// name, and loopback registries (the usual local or test registry) speak plain HTTP, as Docker's
// engine assumes for 127.0.0.0/8 too.

/** Registry names that mean Docker Hub, and the host its v2 API answers on. */
const HUB_NAMES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);
export const HUB_API_HOST = 'registry-1.docker.io';

export interface RegistryEndpoint {
  /** The registry as references name it (`docker.io`, `127.0.0.1:5101`): metrics and logs use it. */
  readonly registry: string;
  /** `https://registry-1.docker.io`, `http://127.0.0.1:5101`, without a trailing slash. */
  readonly baseUrl: string;
}

/** Host part of `host`, `host:port`, `[::1]:port`. */
export function hostOf(hostPort: string): string {
  if (hostPort.startsWith('[')) {
    const end = hostPort.indexOf(']');
    return end === -1 ? hostPort : hostPort.slice(1, end);
  }
  const colon = hostPort.lastIndexOf(':');
  // A bare IPv6 address has several colons and no port.
  if (colon !== -1 && hostPort.indexOf(':') === colon) return hostPort.slice(0, colon);
  return hostPort;
}

/** 127.0.0.0/8, `localhost` and `::1`: registries Docker itself reaches over plain HTTP. */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  return /^127(?:\.\d{1,3}){3}$/.test(h);
}

export function isDockerHub(registry: string): boolean {
  return HUB_NAMES.has(registry.toLowerCase());
}

/** https everywhere, except loopback registries and `tlsSkip` (Watchtower's `--registry-tls-skip` uses http). */
export function registryEndpoint(registry: string, tlsSkip: boolean): RegistryEndpoint {
  const host = isDockerHub(registry) ? HUB_API_HOST : registry;
  const scheme = tlsSkip || isLoopbackHost(hostOf(host)) ? 'http' : 'https';
  return { registry, baseUrl: `${scheme}://${host}` };
}

/** Whether sending credentials to `url` is safe: https, or a loopback host, or the user opted out of TLS. */
export function mayCarryCredentials(url: URL, tlsSkip: boolean): boolean {
  return url.protocol === 'https:' || tlsSkip || isLoopbackHost(url.hostname);
}
