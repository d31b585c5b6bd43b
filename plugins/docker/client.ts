// Building the Engine client from DOCKER_HOST-style options. Every connection field is set explicitly:
// docker-modem merges its own reading of the process environment (DOCKER_HOST, DOCKER_CERT_PATH) under
// whatever it is given, and the server has already resolved those variables into the options.
import { TidewatchError } from '../../core/index.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';

/** Where the Engine listens, parsed from `unix:///path`, `npipe://…`, `tcp://host:port` or `http(s)://`. */
export type DockerEndpoint =
  | { readonly kind: 'socket'; readonly socketPath: string }
  | { readonly kind: 'tcp'; readonly protocol: 'http' | 'https'; readonly host: string; readonly port: number };

export interface DockerConnectionOptions {
  readonly host?: string;
  readonly tlsVerify?: boolean;
  readonly certPath?: string;
  readonly apiVersion?: string;
}

const DEFAULT_HOST = 'unix:///var/run/docker.sock';

/**
 * Parses a DOCKER_HOST value. With `tlsVerify`, `tcp://` means `https://` (Watchtower's rewrite); the
 * Engine's TLS port 2376 is the default then, 2375 otherwise.
 */
export function parseDockerHost(value: string | undefined, tlsVerify = false): DockerEndpoint {
  const host = value?.trim() || DEFAULT_HOST;
  if (host.startsWith('unix://')) {
    return { kind: 'socket', socketPath: host.slice('unix://'.length) || '/var/run/docker.sock' };
  }
  if (host.startsWith('npipe://')) {
    return { kind: 'socket', socketPath: host.slice('npipe://'.length) || '//./pipe/docker_engine' };
  }
  const match = /^(tcp|http|https):\/\/(.+)$/.exec(host);
  if (!match) throw new TidewatchError('TW_ERR_DOCKER_HOST', `unsupported Docker host "${host}": expected unix://, npipe://, tcp://, http:// or https://`, 400);
  const scheme = match[1] as string;
  let url: URL;
  try {
    url = new URL(`http://${match[2] as string}`);
  } catch {
    throw new TidewatchError('TW_ERR_DOCKER_HOST', `invalid Docker host "${host}"`, 400);
  }
  const protocol = scheme === 'https' || (scheme === 'tcp' && tlsVerify) ? 'https' : 'http';
  const port = url.port ? Number(url.port) : protocol === 'https' ? 2376 : 2375;
  // URL keeps the brackets of an IPv6 literal; the socket layer wants the bare address.
  return { kind: 'tcp', protocol, host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** `1.41` or `v1.41` → `v1.41` (docker-modem prefixes request paths with it); empty → negotiate. */
export function normaliseApiVersion(version: string | undefined): string | undefined {
  const trimmed = version?.trim();
  if (!trimmed) return undefined;
  return trimmed.startsWith('v') ? trimmed : `v${trimmed}`;
}

/** dockerode's constructor options for the given connection, with the TLS material read from disk. */
export function dockerodeOptions(options: DockerConnectionOptions): Docker.DockerOptions {
  const endpoint = parseDockerHost(options.host, options.tlsVerify);
  const version = normaliseApiVersion(options.apiVersion);
  if (endpoint.kind === 'socket') {
    return {
      socketPath: endpoint.socketPath,
      host: undefined,
      port: undefined,
      protocol: undefined,
      ca: undefined,
      cert: undefined,
      key: undefined,
      version,
    };
  }
  const tls =
    endpoint.protocol === 'https' && options.certPath
      ? {
          ca: readFileSync(join(options.certPath, 'ca.pem')),
          cert: readFileSync(join(options.certPath, 'cert.pem')),
          key: readFileSync(join(options.certPath, 'key.pem')),
        }
      : { ca: undefined, cert: undefined, key: undefined };
  return {
    socketPath: undefined,
    host: endpoint.host,
    port: endpoint.port,
    protocol: endpoint.protocol,
    ...tls,
    version,
  };
}

/** A dockerode client for the given connection; the server reuses it for its own Engine calls. */
export function createDockerClient(options: DockerConnectionOptions = {}): Docker {
  return new Docker(dockerodeOptions(options));
}

/** `GET /_ping`, abortable (dockerode honours `abortSignal` here; its typings predate that). */
export async function pingEngine(docker: Docker, signal?: AbortSignal): Promise<void> {
  const ping = docker.ping as unknown as (this: Docker, options: { abortSignal?: AbortSignal }) => Promise<unknown>;
  await ping.call(docker, { abortSignal: signal });
}
