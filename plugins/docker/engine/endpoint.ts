// Where an Engine listens and the transport settings to reach it, parsed from DOCKER_HOST-style options
// (docs/configuration.md). Parsing and file reads only: `tidewatch agent` imports this without the Engine
// client (docs/fleet.md#agent-mode); plugins/docker/engine/connect.ts builds the client from it.
import { TidewatchError } from '../../../core/index.js';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import type { EngineTransportOptions } from './transport.js';
import { parseSshHost, redactSshEntry, type SshAddress } from './ssh/address.js';
import type { SshSettings } from './ssh/settings.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { readFileSync } = process.getBuiltinModule('node:fs');

/** Where the Engine listens, parsed from `unix:///path`, `npipe://…`, `tcp://host:port`, `http(s)://` or `ssh://`. */
export type DockerEndpoint =
  | { readonly kind: 'socket'; readonly socketPath: string }
  | { readonly kind: 'tcp'; readonly protocol: 'http' | 'https'; readonly host: string; readonly port: number }
  /** A remote engine's socket through SSH (docs/ssh-hosts.md); `name` is the value as given. */
  | ({ readonly kind: 'ssh'; readonly name: string } & SshAddress)
  | TunnelEndpoint;

/**
 * An engine reached through a byte stream someone else opens: an agent's tunnel (docs/fleet.md). Each
 * connection of the transport is one stream; `connect` throws when there is no way through now.
 */
export interface TunnelEndpoint {
  readonly kind: 'tunnel';
  readonly connect: () => Duplex;
}

export interface DockerConnectionOptions {
  readonly host?: string;
  readonly tlsVerify?: boolean;
  readonly certPath?: string;
  readonly apiVersion?: string;
  /** The key and known_hosts file of ssh:// engines (read at start, ssh/settings.ts). */
  readonly ssh?: SshSettings;
}

export const DEFAULT_HOST = 'unix:///var/run/docker.sock';

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
  if (host.startsWith('ssh://')) {
    try {
      return { kind: 'ssh', name: host, ...parseSshHost(host) };
    } catch (err) {
      throw new TidewatchError('TW_ERR_DOCKER_HOST', `invalid Docker host "${redactSshEntry(host)}": ${(err as Error).message}`, 400);
    }
  }
  const match = /^(tcp|http|https):\/\/(.+)$/.exec(host);
  if (!match) throw new TidewatchError('TW_ERR_DOCKER_HOST', `unsupported Docker host "${host}": expected unix://, npipe://, tcp://, http://, https:// or ssh://`, 400);
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

/** `1.41` or `v1.41` → `v1.41` (the prefix of every request path); empty → the Engine's own version. */
export function normaliseApiVersion(version: string | undefined): string | undefined {
  const trimmed = version?.trim();
  if (!trimmed) return undefined;
  return trimmed.startsWith('v') ? trimmed : `v${trimmed}`;
}

/** The transport settings for the given connection, with the TLS material read from disk. */
export function transportOptions(options: DockerConnectionOptions): EngineTransportOptions {
  const endpoint = parseDockerHost(options.host, options.tlsVerify);
  const version = normaliseApiVersion(options.apiVersion);
  const tls =
    endpoint.kind === 'tcp' && endpoint.protocol === 'https' && options.certPath
      ? {
          ca: readFileSync(join(options.certPath, 'ca.pem')),
          cert: readFileSync(join(options.certPath, 'cert.pem')),
          key: readFileSync(join(options.certPath, 'key.pem')),
        }
      : undefined;
  return { endpoint, tls, version, ...(endpoint.kind === 'ssh' ? { ssh: options.ssh } : {}) };
}
