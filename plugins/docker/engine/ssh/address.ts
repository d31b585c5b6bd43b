// An `ssh://` engine address (docs/ssh-hosts.md): Docker's own scheme, `ssh://[user@]host[:port]`, with the
// remote engine's socket as `?socket=` (default /var/run/docker.sock). Parsing only, shared by the --host
// parser (hosts.ts) and the connection (connect.ts); nothing of ssh2 loads here.
import { isAbsolute } from 'node:path';

export const DEFAULT_SSH_PORT = 22;
export const DEFAULT_REMOTE_SOCKET = '/var/run/docker.sock';

export interface SshAddress {
  /** The login name; undefined: the local user's, as `ssh` does. */
  readonly user: string | undefined;
  /** A name or address, without the brackets of an IPv6 literal. */
  readonly host: string;
  readonly port: number;
  /** The engine's unix socket on the remote machine. */
  readonly socketPath: string;
}

/** Why an address is refused; the caller puts the entry (redacted) in front. */
export class SshAddressError extends Error {}

/** `rest` is what follows `ssh://` up to the query; `socket` the query's `socket=` value when given. */
export function parseSshAddress(rest: string, socket: string | undefined): SshAddress {
  let url: URL;
  try {
    url = new URL(`ssh://${rest}`);
  } catch {
    throw new SshAddressError('not a [user@]host[:port] address');
  }
  if (url.hostname === '') throw new SshAddressError('no host name');
  // A password in the address would sit in the configuration and in every record's host: keys only.
  if (url.password !== '') throw new SshAddressError('a password in the address is refused: authenticate with --ssh-key');
  if (url.pathname !== '' || url.search !== '' || url.hash !== '') throw new SshAddressError('only [user@]host[:port] may follow ssh://');
  const port = url.port === '' ? DEFAULT_SSH_PORT : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new SshAddressError('port out of range');
  if (socket !== undefined && (socket.trim() === '' || !isAbsolute(socket))) throw new SshAddressError('socket= must be an absolute path on the remote host');
  return {
    user: url.username === '' ? undefined : decodeURIComponent(url.username),
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    socketPath: socket ?? DEFAULT_REMOTE_SOCKET,
  };
}

/** A full `ssh://…[?socket=…]` value (an engine's name, docs/hosts.md) parsed back. */
export function parseSshHost(value: string): SshAddress {
  const match = /^ssh:\/\/([^?]*)(?:\?(.*))?$/s.exec(value.trim());
  if (!match) throw new SshAddressError('not an ssh:// address');
  const socket = new URLSearchParams(match[2] ?? '').get('socket') ?? undefined;
  return parseSshAddress(match[1] as string, socket);
}

/** The entry with a password, if one was written, hidden: what error messages may show. */
export function redactSshEntry(entry: string): string {
  return entry.replace(/^(ssh:\/\/[^:@/?]*):[^@/?]*@/, '$1:***@');
}

export function isSshHost(host: string): boolean {
  return host.startsWith('ssh://');
}
