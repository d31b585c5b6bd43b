// Where `--git-token` and `--git-password` may go (docs/interface.md#git-credentials): the origin of
// `--git-github-api-url` and the Git hosts the operator listed in `--git-credential-hosts`, over https (plain
// http only to a loopback address). A `git.repo` label is the publisher's word when the image carries it, so
// the repository it names never decides by itself who receives the operator's secret: a host that is not
// listed is read anonymously, whatever it answers.
import { isIP } from 'node:net';

/** One `--git-credential-hosts` entry: a host name, optionally with a port. */
export interface CredentialHost {
  readonly hostname: string;
  /** Absent: only the scheme's default port (as git's own `credential.<url>` matching does). */
  readonly port?: string;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Parses `host`, `host:port` or `[v6]:port`; throws an Error saying what is accepted. */
export function parseCredentialHost(raw: string): CredentialHost {
  const value = raw.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(value);
  const plain = /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(value);
  const match = bracketed ?? plain;
  const hostname = match?.[1];
  const port = match?.[2];
  const validHost = hostname !== undefined && (bracketed ? isIP(hostname) === 6 : HOST_NAME.test(hostname) || isIP(hostname) === 4);
  const validPort = port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
  if (!validHost || !validPort) {
    throw new Error(`${JSON.stringify(raw)} is not a host name with an optional :port (e.g. github.com, git.example.com:8443)`);
  }
  return port === undefined ? { hostname: bracketed ? `[${hostname}]` : hostname } : { hostname: bracketed ? `[${hostname}]` : hostname, port: String(Number(port)) };
}

/** 127.0.0.0/8, `localhost` and `::1`: the only hosts a credential may reach over plain http. */
export function isLoopbackHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  return /^127(?:\.\d{1,3}){3}$/.test(h);
}

/** https, or http to a loopback address: the only transports a credential may travel over. */
export function isCredentialSafeTransport(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname));
}

function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** The operator's list of Git hosts that may receive the configured credentials. */
export class CredentialHosts {
  readonly #hosts: readonly CredentialHost[];

  constructor(hosts: readonly CredentialHost[]) {
    this.#hosts = hosts;
  }

  /** Whether the configured credentials may be sent to `url` (a repository URL, or where it redirected). */
  allows(url: URL): boolean {
    if (!isCredentialSafeTransport(url)) return false;
    const hostname = url.hostname.toLowerCase();
    return this.#hosts.some((h) => h.hostname === hostname && (h.port === undefined ? url.port === '' : h.port === effectivePort(url)));
  }
}
