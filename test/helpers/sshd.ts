// A private OpenSSH server for the ssh:// host tests (docs/ssh-hosts.md): Debian's openssh-server on loopback
// with its own host key, its own configuration and a test key authorised for the user the tests run as, and
// stream-local forwarding allowed: what Tidewatch needs of a remote and nothing else (no remote forwarding, no
// TTY, no password, no shell: every session's command is /bin/false). Keys are made with ssh-keygen. `rekey` restarts it on the same port with a new host key,
// dropping its connections: a host whose key changed.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHmac, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './env.js';
import { freePort } from './ports.js';

export const SSHD = '/usr/sbin/sshd';

export type KeyType = 'ed25519' | 'rsa' | 'ecdsa';

export interface Sshd {
  readonly port: number;
  /** The user the client key is authorised for: the tests' own. */
  readonly user: string;
  /** The client's private key (no passphrase): a --ssh-key. */
  readonly clientKey: string;
  /** `ssh-ed25519 AAAA…`: the host key's public line as the server presents it now. */
  hostKey(): string;
  /** The known_hosts line for this server (`[127.0.0.1]:port type key`), plain or hashed (`|1|salt|hash`). */
  knownHostsLine(options?: { hashed?: boolean }): string;
  /** `ssh://user@127.0.0.1:port?socket=…`: a --host entry. */
  url(socket: string): string;
  /** Restarts on the same port with a new host key (its connections are dropped). */
  rekey(): Promise<void>;
  /** Restarts on the same port with the same key (its connections are dropped, as at a reboot). */
  restart(): Promise<void>;
  /** The sshd log so far (its -e output), across restarts. */
  log(): string;
  stop(): Promise<void>;
}

/** Whether Debian's openssh-server is installed (scripts/test-env.sh installs it; CI=true fails without it). */
export function sshdInstalled(): boolean {
  return existsSync(SSHD) && existsSync('/usr/bin/ssh-keygen');
}

/**
 * For tap tests: a private sshd, stopped at the test's end; undefined after marking the test skipped when
 * openssh-server is missing (locally). With CI=true a missing sshd throws, failing the test.
 */
export async function requireSshd(
  t: { plan(n: number, comment?: string): void; teardown(fn: () => unknown): void },
  options?: SshdOptions,
): Promise<Sshd | undefined> {
  if (!sshdInstalled()) {
    const msg = `no ${SSHD} (Debian's openssh-server; scripts/test-env.sh up installs it)`;
    if (process.env['CI'] === 'true') throw new Error(`${msg} (CI=true: tests that need it must not be skipped)`);
    t.plan(0, msg);
    return undefined;
  }
  const sshd = await startSshd(options);
  t.teardown(() => sshd.stop());
  return sshd;
}

function keygen(file: string, type: KeyType): void {
  rmSync(file, { force: true });
  rmSync(`${file}.pub`, { force: true });
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', 'tidewatch-test', '-f', file], { stdio: 'ignore' });
}

/** The public line `type base64` of a key file, without its comment. */
function publicLine(file: string): string {
  return readFileSync(`${file}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
}

export function hashedHostName(name: string): string {
  const salt = randomBytes(20);
  const hash = createHmac('sha1', salt).update(name).digest();
  return `|1|${salt.toString('base64')}|${hash.toString('base64')}`;
}

function config(dir: string, port: number, user: string): string {
  return `Port ${port}
ListenAddress 127.0.0.1
HostKey ${join(dir, 'host_key')}
PidFile none
AuthorizedKeysFile ${join(dir, 'authorized_keys')}
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers ${user}
AllowStreamLocalForwarding local
# OpenSSH applies its local forwarding switch to stream-local channels too: "no" here would refuse them.
AllowTcpForwarding local
AllowAgentForwarding no
X11Forwarding no
PermitTTY no
ForceCommand /bin/false
UsePAM no
StrictModes no
LogLevel VERBOSE
`;
}

/**
 * The processes descending from `pid`: sshd's per-connection monitors (each in a session of its own) and
 * the session processes under them, which hold the connection's socket.
 */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

/** Whether `pid` is gone or a zombie nobody reaps (a connection process whose parent was killed). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

export interface SshdOptions {
  readonly hostKeyType?: KeyType;
  readonly clientKeyType?: KeyType;
  /** Authorise this existing client key (its `.pub` beside it) instead of making one: one --ssh-key for several servers. */
  readonly clientKey?: string;
}

export async function startSshd(options: SshdOptions = {}): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-sshd-'));
  const port = await freePort();
  const user = userInfo().username;
  const hostKeyType = options.hostKeyType ?? 'ed25519';
  keygen(join(dir, 'host_key'), hostKeyType);
  const clientKey = options.clientKey ?? join(dir, 'client_key');
  if (!options.clientKey) keygen(clientKey, options.clientKeyType ?? 'ed25519');
  // What docs/ssh-hosts.md#the-remote-host suggests: everything off but forwarding.
  writeFileSync(join(dir, 'authorized_keys'), `restrict,port-forwarding ${publicLine(clientKey)}\n`);
  writeFileSync(join(dir, 'sshd_config'), config(dir, port, user));
  // sshd wants its privilege separation directory even for a private instance (Debian's package makes it at boot).
  if (userInfo().uid === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  let child: ChildProcess | undefined;
  const output: string[] = [];
  const launch = async () => {
    const started = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
    started.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    child = started;
    await waitFor(
      () =>
        new Promise<boolean>((resolve, reject) => {
          if (started.exitCode !== null) reject(new Error(`sshd exited (${started.exitCode}): ${output.join('')}`));
          const socket = connect(port, '127.0.0.1');
          socket.once('data', (banner) => {
            socket.destroy();
            resolve(banner.toString().startsWith('SSH-2.0-'));
          });
          socket.once('error', () => resolve(false));
        }),
      10_000,
      50,
    );
  };
  const halt = async () => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    // Its connections live in processes of their own (sshd gives each a session): end them too, by their
    // pids, as a host going down would; SIGKILL so that none lingers with a connection open.
    const connections = descendantsOf(running.pid as number);
    running.kill('SIGKILL');
    for (const pid of connections) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await exited;
    await waitFor(() => connections.every(gone), 5000, 20);
  };
  await launch();

  return {
    port,
    user,
    clientKey,
    hostKey: () => publicLine(join(dir, 'host_key')),
    knownHostsLine: ({ hashed = false } = {}) => {
      const name = `[127.0.0.1]:${port}`;
      return `${hashed ? hashedHostName(name) : name} ${publicLine(join(dir, 'host_key'))}`;
    },
    url: (socket) => `ssh://${user}@127.0.0.1:${port}?socket=${socket}`,
    rekey: async () => {
      await halt();
      keygen(join(dir, 'host_key'), hostKeyType);
      await launch();
    },
    restart: async () => {
      await halt();
      await launch();
    },
    log: () => output.join(''),
    stop: async () => {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
