// What every ssh:// engine shares (docs/ssh-hosts.md#keys): the client key (--ssh-key; by default
// ~/.ssh/id_ed25519, then ~/.ssh/id_rsa, as `ssh` tries them) and the known_hosts file (--ssh-known-hosts;
// default ~/.ssh/known_hosts). Read once at start, when an ssh:// host is configured; a key that cannot be
// used exits with code 2, the message naming the option and the file, never the key.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorMessage, invalidOptions } from '../../../../core/index.js';
import { loadSsh2 } from './ssh2.js';
import { SshTunnel } from './tunnel.js';

export interface SshSettings {
  /** The client key's file, for messages. */
  readonly keyFile: string;
  readonly privateKey: Buffer;
  /** Read again at every new connection: a key added or removed there counts at the next one. */
  readonly knownHostsFile: string;
  /**
   * The tunnel's class, loaded with the settings (ssh:// hosts only): the Engine transport imports no SSH code
   * itself (docs/plugins.md#loading-code-at-first-use).
   */
  readonly Tunnel: typeof SshTunnel;
}

export interface SshOptionValues {
  /** --ssh-key; empty: the defaults. */
  readonly sshKey: string;
  /** --ssh-known-hosts; empty: ~/.ssh/known_hosts. */
  readonly sshKnownHosts: string;
}

/** A private key file is small; anything larger is not one. */
const KEY_FILE_LIMIT = 64 * 1024;

function defaultKeyFile(home: string): string {
  const candidates = [join(home, '.ssh', 'id_ed25519'), join(home, '.ssh', 'id_rsa')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw invalidOptions('ssh-key', `--ssh-key: an ssh:// host is configured but no key is given, and neither ${candidates.join(' nor ')} exists`);
  return found;
}

function readKey(file: string): Buffer {
  let content: Buffer;
  try {
    content = readFileSync(file);
  } catch (err) {
    throw invalidOptions('ssh-key', `--ssh-key: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`);
  }
  if (content.length > KEY_FILE_LIMIT) throw invalidOptions('ssh-key', `--ssh-key: ${file} is larger than a private key (over 64 KiB)`);
  return content;
}

/** The settings, the key checked with ssh2's own parser (which then loads: an ssh:// host is configured). */
export async function sshSettings(options: SshOptionValues, home = homedir()): Promise<SshSettings> {
  const keyFile = options.sshKey || defaultKeyFile(home);
  const privateKey = readKey(keyFile);
  const { utils } = await loadSsh2();
  const parsed = utils.parseKey(privateKey);
  // parseKey's messages say what is wrong with the format, never the key's content.
  if (parsed instanceof Error) {
    const why = /passphrase/i.test(parsed.message) ? 'it is encrypted with a passphrase, which Tidewatch cannot ask for: use a key without one' : `not a private key ssh2 can read (${parsed.message})`;
    throw invalidOptions('ssh-key', `--ssh-key: ${keyFile}: ${why}`);
  }
  const key = Array.isArray(parsed) ? parsed[0] : parsed;
  if (!key?.isPrivateKey()) throw invalidOptions('ssh-key', `--ssh-key: ${keyFile} holds a public key, not a private one`);
  return { keyFile, privateKey, knownHostsFile: options.sshKnownHosts || join(home, '.ssh', 'known_hosts'), Tunnel: SshTunnel };
}
