// One SSH connection per ssh:// engine (docs/ssh-hosts.md): every Engine HTTP connection is a new
// `direct-streamlocal@openssh.com` channel over it to the engine's unix socket on the remote machine, so the
// remote needs sshd and the socket, no Docker CLI. The connection is made at the first call, checked against
// the known_hosts file (never trusted on first use), kept, and made again at the next call after it dropped.
import { openHandle as open } from '../../../../contracts/shared/node-fs.js';
import { userInfo } from 'node:os';
import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';
import { errorMessage } from '../../../../core/index.js';
import type { SshAddress } from './address.js';
import { ChannelSocket } from './channel-socket.js';
import { SshHostKeyError, sshFailed } from './errors.js';
import { blobType, fingerprint, hostKeyAlgorithms, keysFor, knownHostName, parseKnownHosts, verifyHostKey, type HostKeys } from './known-hosts.js';
import type { SshSettings } from './settings.js';
import { loadSsh2 } from './ssh2.js';

/** A known_hosts file larger than this is not read (a bounded read of an operator's file). */
const KNOWN_HOSTS_LIMIT = 4 * 1024 * 1024;
/** The handshake and authentication; the engine's calls have their own cancellation. */
const READY_TIMEOUT_MS = 20_000;
/** SSH keepalives: a connection that stops answering is dropped within about 45 s and made again. */
const KEEPALIVE_MS = 15_000;
const KEEPALIVE_COUNT = 3;
/** A channel the server neither opens nor refuses in this time: the connection is taken for dead. */
const CHANNEL_OPEN_TIMEOUT_MS = 20_000;

export type CreateConnection = (options: unknown, callback: (err: Error | null, socket?: Duplex) => void) => undefined;

async function readBounded(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(KNOWN_HOSTS_LIMIT + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > KNOWN_HOSTS_LIMIT) throw new Error('larger than 4 MiB');
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

interface Connection {
  /** Set once ssh2 is loaded and the client made. */
  client: Client | undefined;
  readonly ready: Promise<Client>;
  /** The channels open over it: destroyed with it, so that no call waits on a dead one. */
  readonly sockets: Set<ChannelSocket>;
}

/** The local user's name, as `ssh` takes it when the address names none. */
function localUser(): string {
  try {
    return userInfo().username;
  } catch {
    // A uid without a passwd entry (a container run with --user 1000).
    return process.env['USER'] ?? 'root';
  }
}

export class SshTunnel {
  #current: Connection | undefined;

  constructor(
    /** The engine's name (its --host entry), for messages. */
    readonly name: string,
    readonly address: SshAddress,
    readonly settings: SshSettings,
  ) {}

  /** `createConnection` of an http.Agent: a new channel to the engine's socket. */
  readonly createConnection: CreateConnection = (_options, callback) => {
    this.openStream().then(
      (socket) => callback(null, socket),
      (err: unknown) => callback(err instanceof Error ? err : new Error(errorMessage(err))),
    );
    return undefined;
  };

  async openStream(): Promise<Duplex> {
    const connection = await this.#connection();
    const client = connection.client as Client;
    const { socketPath } = this.address;
    return new Promise((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        // A connection that stopped answering: dropped, and made again by the next call.
        timedOut = true;
        this.#drop(connection);
        reject(new Error(`${this.name}: the SSH server did not answer a channel request in ${CHANNEL_OPEN_TIMEOUT_MS / 1000} s`));
      }, CHANNEL_OPEN_TIMEOUT_MS);
      try {
        client.openssh_forwardOutStreamLocal(socketPath, (err, channel) => {
          clearTimeout(timer);
          if (timedOut) {
            // Opened after all, but nobody waits for it any more.
            if (!err) channel.close();
            return;
          }
          if (err) {
            reject(sshFailed(`${this.name}: the SSH server did not open ${socketPath} (${err.message}): check the socket path, that the user may open it, and AllowStreamLocalForwarding (docs/ssh-hosts.md#the-remote-host)`, err));
            return;
          }
          const socket = new ChannelSocket(channel);
          connection.sockets.add(socket);
          socket.once('close', () => connection.sockets.delete(socket));
          resolve(socket);
        });
      } catch (err) {
        // The connection dropped between its ready and this call: the next call makes a new one.
        clearTimeout(timer);
        this.#drop(connection);
        reject(err);
      }
    });
  }

  /** Ends the connection (Tidewatch is stopping). */
  close(): void {
    if (this.#current) this.#drop(this.#current);
  }

  /** Forgets a connection and ends it with its channels. */
  #drop(connection: Connection): void {
    if (this.#current === connection) this.#current = undefined;
    connection.client?.end();
    for (const socket of connection.sockets) socket.destroy(new Error(`${this.name}: the SSH connection closed`));
  }

  async #connection(): Promise<Connection> {
    let connection = this.#current;
    if (!connection) {
      connection = this.#connect();
      this.#current = connection;
      const made = connection;
      connection.ready.catch(() => this.#drop(made));
    }
    await connection.ready;
    return connection;
  }

  async #hostKeys(): Promise<HostKeys> {
    const file = this.settings.knownHostsFile;
    let text: string;
    try {
      text = await readBounded(file);
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? errorMessage(err);
      throw new SshHostKeyError('unknown', `host key of ${this.name} cannot be checked: the known hosts file ${file} cannot be read (${why}); a host key is never trusted on first use (docs/ssh-hosts.md#the-known-hosts-rule)`);
    }
    const keys = keysFor(parseKnownHosts(text), knownHostName(this.address.host, this.address.port));
    if (keys.keys.length === 0) {
      const { host, port } = this.address;
      throw new SshHostKeyError(
        'unknown',
        `host key of ${this.name} is unknown: ${keys.name} is not listed in ${file}; add its key after comparing its fingerprint with the host's own (ssh-keyscan -p ${port} ${host}), it is never trusted on first use (docs/ssh-hosts.md#the-known-hosts-rule)`,
      );
    }
    return keys;
  }

  #refusal(keys: HostKeys, presented: Buffer): SshHostKeyError | undefined {
    const verdict = verifyHostKey(keys, presented);
    if (verdict === 'known') return undefined;
    const shown = `${blobType(presented) ?? 'unknown type'} ${fingerprint(presented)}`;
    const file = this.settings.knownHostsFile;
    if (verdict === 'revoked') return new SshHostKeyError('revoked', `host key of ${this.name} (${shown}) is marked @revoked in ${file}: refused`);
    return new SshHostKeyError(
      verdict,
      `host key of ${this.name} has changed: it presented ${shown}, which ${file} does not list for ${keys.name}; refused (if the host's key was replaced on purpose, replace its line) (docs/ssh-hosts.md#the-known-hosts-rule)`,
    );
  }

  #connect(): Connection {
    let resolveReady!: (client: Client) => void;
    let rejectReady!: (err: unknown) => void;
    const ready = new Promise<Client>((resolve, reject) => {
      resolveReady = resolve;
      rejectReady = reject;
    });
    const connection: Connection = { client: undefined, ready, sockets: new Set() };
    void (async () => {
      const keys = await this.#hostKeys();
      const { Client: SshClient } = await loadSsh2();
      const client = new SshClient();
      connection.client = client;
      let refusal: SshHostKeyError | undefined;
      let isReady = false;
      client.once('ready', () => {
        isReady = true;
        resolveReady(client);
      });
      client.on('error', (err: Error & { level?: string }) => {
        if (isReady) return; // the 'close' that follows drops the connection; its channels fail their calls
        if (refusal) rejectReady(refusal);
        else if (err.level === 'client-authentication') {
          rejectReady(sshFailed(`${this.name}: the SSH server did not accept the key ${this.settings.keyFile} for user ${this.#user()} (docs/ssh-hosts.md#the-remote-host)`, err));
        } else rejectReady(err);
      });
      client.once('close', () => {
        this.#drop(connection);
        rejectReady(new Error(`${this.name}: the SSH connection closed before it was ready`));
      });
      client.connect({
        host: this.address.host,
        port: this.address.port,
        username: this.#user(),
        privateKey: this.settings.privateKey,
        algorithms: { serverHostKey: hostKeyAlgorithms(keys) as never },
        hostVerifier: (presented: Buffer) => {
          refusal = this.#refusal(keys, presented);
          return refusal === undefined;
        },
        readyTimeout: READY_TIMEOUT_MS,
        keepaliveInterval: KEEPALIVE_MS,
        keepaliveCountMax: KEEPALIVE_COUNT,
      });
    })().catch(rejectReady);
    return connection;
  }

  #user(): string {
    return this.address.user ?? localUser();
  }
}
