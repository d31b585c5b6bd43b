// --ssh-key and --ssh-known-hosts (docs/ssh-hosts.md#keys): the defaults `ssh` uses (~/.ssh/id_ed25519, then
// id_rsa; ~/.ssh/known_hosts), and a key that cannot be used refused with one line naming the option and the
// file, never the key. Keys are made with ssh2's own generator (OpenSSH's format, as ssh-keygen writes it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import t from 'tap';
import { ConfigError } from '../../../core/index.js';
import { sshSettings } from '../../../plugins/docker/engine/ssh/settings.js';
import { sshSettingsFor } from '../../../plugins/docker/engine/ssh/startup.js';

const { utils } = ssh2;

function home(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'tw-ssh-home-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, '.ssh'));
  return dir;
}

async function refusal(promise: Promise<unknown>): Promise<ConfigError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('not refused');
}

t.test('the defaults: ~/.ssh/id_ed25519, then id_rsa, and ~/.ssh/known_hosts', async (t) => {
  const dir = home(t);
  const rsa = utils.generateKeyPairSync('rsa', { bits: 2048 });
  writeFileSync(join(dir, '.ssh', 'id_rsa'), rsa.private);
  const first = await sshSettings({ sshKey: '', sshKnownHosts: '' }, dir);
  t.equal(first.keyFile, join(dir, '.ssh', 'id_rsa'), 'id_rsa when there is no id_ed25519');
  t.equal(first.knownHostsFile, join(dir, '.ssh', 'known_hosts'));
  t.equal(first.privateKey.toString(), rsa.private);

  writeFileSync(join(dir, '.ssh', 'id_ed25519'), utils.generateKeyPairSync('ed25519').private);
  t.equal((await sshSettings({ sshKey: '', sshKnownHosts: '/etc/tidewatch/known_hosts' }, dir)).keyFile, join(dir, '.ssh', 'id_ed25519'), 'id_ed25519 first');
  t.equal((await sshSettings({ sshKey: '', sshKnownHosts: '/etc/tidewatch/known_hosts' }, dir)).knownHostsFile, '/etc/tidewatch/known_hosts');
});

t.test('a key that cannot be used exits 2 naming --ssh-key and the file, never the key', async (t) => {
  const dir = home(t);
  const none = await refusal(sshSettings({ sshKey: '', sshKnownHosts: '' }, dir));
  t.equal(none.option, 'ssh-key');
  t.match(none.message, /^--ssh-key: an ssh:\/\/ host is configured but no key is given, and neither \S+id_ed25519 nor \S+id_rsa exists$/);

  t.match((await refusal(sshSettings({ sshKey: join(dir, 'missing'), sshKnownHosts: '' }, dir))).message, /^--ssh-key: cannot read \S+missing \(ENOENT\)$/);

  const encrypted = utils.generateKeyPairSync('ed25519', { passphrase: 'correct horse', cipher: 'aes256-ctr', rounds: 16 });
  writeFileSync(join(dir, 'encrypted'), encrypted.private);
  const locked = await refusal(sshSettings({ sshKey: join(dir, 'encrypted'), sshKnownHosts: '' }, dir));
  t.match(locked.message, /^--ssh-key: \S+encrypted: it is encrypted with a passphrase, which Tidewatch cannot ask for: use a key without one$/);

  const pair = utils.generateKeyPairSync('ed25519');
  writeFileSync(join(dir, 'public'), pair.public);
  t.match((await refusal(sshSettings({ sshKey: join(dir, 'public'), sshKnownHosts: '' }, dir))).message, /^--ssh-key: \S+public holds a public key, not a private one$/);

  const garbage = `-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-key-${'x'.repeat(40)}\n-----END OPENSSH PRIVATE KEY-----\n`;
  writeFileSync(join(dir, 'garbage'), garbage);
  const bad = await refusal(sshSettings({ sshKey: join(dir, 'garbage'), sshKnownHosts: '' }, dir));
  t.match(bad.message, /^--ssh-key: \S+garbage: not a private key ssh2 can read/);
  t.notMatch(bad.message, /not-a-key/, 'the file\'s content is never repeated');
  t.notMatch(bad.message, /\n/, 'one line');

  writeFileSync(join(dir, 'huge'), Buffer.alloc(70 * 1024, 'a'));
  t.match((await refusal(sshSettings({ sshKey: join(dir, 'huge'), sshKnownHosts: '' }, dir))).message, /larger than a private key/);
});

t.test('nothing is read when no ssh:// host is configured', async (t) => {
  t.equal(await sshSettingsFor(['unix:///var/run/docker.sock', 'tcp://10.0.0.2:2376'], { sshKey: '/no/such/key', sshKnownHosts: '' }), undefined);
  await t.rejects(sshSettingsFor(['ssh://ops@h'], { sshKey: '/no/such/key', sshKnownHosts: '' }), /--ssh-key: cannot read \/no\/such\/key/);
});
