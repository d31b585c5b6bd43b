// Threat model row "the SSH server at an ssh:// host's address" (docs/security.md#threat-model): whoever answers
// there could be someone in the middle, or a reinstalled machine. Tidewatch talks to it only when the
// known_hosts file lists the key it presents for that exact host and port: an unknown host is refused (never
// trusted on first use, the file never written), a changed or @revoked key is refused, and in each case the client
// key is never offered to it. A real sshd (Debian's openssh-server) on loopback; the control case shows the same
// setup authenticates once the right key is listed.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createDockerClient } from '../../plugins/docker/engine/connect.js';
import { sshSettings } from '../../plugins/docker/engine/ssh/settings.js';
import { tempDir } from '../helpers/fixtures.js';
import { requireSshd, startSshd, type Sshd } from '../helpers/sshd.js';

/** The engine's socket is never reached in these cases: a refusal comes first, or the control case stops at it. */
const SOCKET = '/nonexistent/docker.sock';

async function pingWith(sshd: Sshd, knownHosts: string): Promise<{ code?: string; message: string } | 'ok'> {
  const ssh = await sshSettings({ sshKey: sshd.clientKey, sshKnownHosts: knownHosts });
  const client = createDockerClient({ host: sshd.url(SOCKET), ssh });
  try {
    await client.ping({ signal: AbortSignal.timeout(15_000) });
    return 'ok';
  } catch (err) {
    return { code: (err as { code?: string }).code, message: (err as Error).message };
  } finally {
    client.close();
  }
}

/** Whether sshd saw the client offer its key (the line it logs before the signature, and on acceptance). */
const offeredKey = (sshd: Sshd) => /Postponed publickey|Accepted publickey|Failed publickey/.test(sshd.log());

async function setup(t: Test, label: string): Promise<{ sshd: Sshd; knownHosts: string } | undefined> {
  const sshd = await requireSshd(t);
  if (!sshd) return undefined;
  const dir = await tempDir(t, label);
  return { sshd, knownHosts: join(dir, 'known_hosts') };
}

t.test('an unknown host is refused, never trusted on first use, and the file is not written', async (t) => {
  const s = await setup(t, 'sec-ssh-unknown');
  if (!s) return;
  // The same server's key listed for the port 22 name and for another host: neither is this host and port.
  const content = `127.0.0.1 ${s.sshd.hostKey()}\nother.example ${s.sshd.hostKey()}\n`;
  await writeFile(s.knownHosts, content);
  for (let attempt = 1; attempt <= 2; attempt++) {
    const result = await pingWith(s.sshd, s.knownHosts);
    t.match(result, { code: 'TW_ERR_SSH_HOST_KEY', message: /is unknown: \[127\.0\.0\.1\]:\d+ is not listed in .*never trusted on first use/ }, `attempt ${attempt} refused`);
  }
  t.equal(await readFile(s.knownHosts, 'utf8'), content, 'known_hosts is never written');
  t.notOk(offeredKey(s.sshd), 'the client key was never offered');

  await writeFile(s.knownHosts, '');
  t.match(await pingWith(s.sshd, s.knownHosts), { code: 'TW_ERR_SSH_HOST_KEY', message: /is unknown/ }, 'an empty file vouches for nobody');
  t.match(await pingWith(s.sshd, join(s.knownHosts, '..', 'missing')), { code: 'TW_ERR_SSH_HOST_KEY', message: /cannot be read \(ENOENT\)/ }, 'nor a missing one');
});

t.test('a host presenting another key than the one listed is refused before the client key is offered', async (t) => {
  const s = await setup(t, 'sec-ssh-changed');
  if (!s) return;
  // The key of another server (a genuine host key of the same type) listed for this address.
  const impostorOf = await startSshd();
  t.teardown(() => impostorOf.stop());
  await writeFile(s.knownHosts, `[127.0.0.1]:${s.sshd.port} ${impostorOf.hostKey()}\n`);
  const result = await pingWith(s.sshd, s.knownHosts);
  t.match(result, { code: 'TW_ERR_SSH_HOST_KEY', message: /has changed: it presented ssh-ed25519 SHA256:\S+, which .* does not list for \[127\.0\.0\.1\]:\d+; refused/ });
  // The fingerprint shown is the one the host's operator sees with ssh-keygen -l.
  const pub = join(s.knownHosts, '..', 'presented.pub');
  await writeFile(pub, `${s.sshd.hostKey()}\n`);
  const expected = execFileSync('ssh-keygen', ['-l', '-f', pub], { encoding: 'utf8' }).split(' ')[1];
  t.match(result, { message: new RegExp(`presented ssh-ed25519 ${(expected ?? 'none').replace(/[+/]/g, '\\$&')},`) });
  t.notOk(offeredKey(s.sshd), 'the client key was never offered to the changed host');
});

t.test('a server whose key type is not listed cannot slip another key in: it is refused', async (t) => {
  const rsa = await requireSshd(t, { hostKeyType: 'rsa' });
  if (!rsa) return;
  const dir = await tempDir(t, 'sec-ssh-type');
  const knownHosts = join(dir, 'known_hosts');
  const other = await startSshd();
  t.teardown(() => other.stop());
  // An ed25519 key is listed; the server has only an RSA one. Only ed25519 is offered, so no key is agreed on.
  await writeFile(knownHosts, `[127.0.0.1]:${rsa.port} ${other.hostKey()}\n`);
  const result = await pingWith(rsa, knownHosts);
  t.not(result, 'ok');
  t.notOk(offeredKey(rsa), 'the client key was never offered');
});

t.test('a key marked @revoked is refused even where a line lists it', async (t) => {
  const s = await setup(t, 'sec-ssh-revoked');
  if (!s) return;
  await writeFile(s.knownHosts, `${s.sshd.knownHostsLine()}\n@revoked * ${s.sshd.hostKey()}\n`);
  t.match(await pingWith(s.sshd, s.knownHosts), { code: 'TW_ERR_SSH_HOST_KEY', message: /is marked @revoked/ });
  t.notOk(offeredKey(s.sshd), 'the client key was never offered');
});

t.test('control: with its key listed the same server authenticates (and stops at the missing socket)', async (t) => {
  const s = await setup(t, 'sec-ssh-control');
  if (!s) return;
  await writeFile(s.knownHosts, `${s.sshd.knownHostsLine()}\n`);
  t.match(await pingWith(s.sshd, s.knownHosts), { code: 'TW_ERR_SSH', message: /did not open \/nonexistent\/docker\.sock/ });
  t.match(s.sshd.log(), /Accepted publickey/);
});

t.test('control: RSA and ECDSA host keys (and client keys) listed are accepted too', async (t) => {
  for (const type of ['rsa', 'ecdsa'] as const) {
    const sshd = await requireSshd(t, { hostKeyType: type, clientKeyType: type });
    if (!sshd) return;
    const dir = await tempDir(t, `sec-ssh-${type}`);
    const knownHosts = join(dir, 'known_hosts');
    await writeFile(knownHosts, `${sshd.knownHostsLine({ hashed: true })}\n`);
    t.match(await pingWith(sshd, knownHosts), { code: 'TW_ERR_SSH', message: /did not open/ }, `${type}: authenticated`);
    t.match(sshd.log(), /Accepted publickey/);
  }
});
