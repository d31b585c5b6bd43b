// The --host list (docs/hosts.md): entries with their own TLS settings, --tlsverify and --cert-path as
// the defaults of the others, and the engine's name without its settings.
import t from 'tap';
import { engineSpecs, formatHostEntry, parseHostEntry, parseHostList } from '../../../plugins/docker/engine/hosts.js';

t.test('each entry is an engine named as written, its TLS settings apart', async (t) => {
  t.same(parseHostEntry('unix:///var/run/docker.sock'), { host: 'unix:///var/run/docker.sock' });
  t.same(parseHostEntry('tcp://10.0.0.2:2376?tlsverify=t'), { host: 'tcp://10.0.0.2:2376', tlsVerify: true });
  t.same(parseHostEntry('tcp://10.0.0.2:2375?tlsverify=FALSE'), { host: 'tcp://10.0.0.2:2375', tlsVerify: false });
  t.same(parseHostEntry('https://[::1]:2376?cert-path=/c'), { host: 'https://[::1]:2376', certPath: '/c', tlsVerify: true });
  t.same(parseHostEntry('tcp://h:2376?cert-path=certs', { origin: 'flag', cwd: '/srv' }), { host: 'tcp://h:2376', certPath: '/srv/certs', tlsVerify: true });
  t.equal(formatHostEntry(parseHostEntry('tcp://h:2376?cert-path=/c')), 'tcp://h:2376?tlsverify=true&cert-path=/c');
  t.equal(formatHostEntry(parseHostEntry('tcp://h:2376')), 'tcp://h:2376');
  t.same(parseHostList('unix:///a.sock,tcp://h:1 tcp://h:2').map((e) => e.host), ['unix:///a.sock', 'tcp://h:1', 'tcp://h:2']);
  t.throws(() => parseHostList(' , '), /no engine given/);
  t.throws(() => parseHostEntry('tcp://'), /no host name|not a host:port/);
});

t.test('--tlsverify and --cert-path fill what an entry leaves unsaid; an embedder may pass one host', async (t) => {
  const defaults = { tlsVerify: true, certPath: '/certs/default' };
  t.same(engineSpecs(['unix:///a.sock', 'tcp://h:2376', 'tcp://k:2376?cert-path=/certs/k', 'tcp://l:2375?tlsverify=0'], defaults), [
    { host: 'unix:///a.sock', tlsVerify: true, certPath: '/certs/default', stage: 1 },
    { host: 'tcp://h:2376', tlsVerify: true, certPath: '/certs/default', stage: 1 },
    { host: 'tcp://k:2376', tlsVerify: true, certPath: '/certs/k', stage: 1 },
    { host: 'tcp://l:2375', tlsVerify: false, certPath: '/certs/default', stage: 1 },
  ]);
  t.same(engineSpecs('tcp://h:2375', { tlsVerify: false, certPath: undefined }), [{ host: 'tcp://h:2375', tlsVerify: false, certPath: undefined, stage: 1 }]);
  t.same(engineSpecs([], { tlsVerify: false, certPath: undefined }).map((e) => e.host), ['unix:///var/run/docker.sock']);
  t.throws(() => engineSpecs(['tcp://h:1', 'tcp://h:1'], defaults), /listed twice/, 'an embedder gets the same checks');
});

t.test('any entry may name its rollout stage (docs/rollouts.md); a wrong one is refused', async (t) => {
  t.same(parseHostEntry('unix:///a.sock?stage=2'), { host: 'unix:///a.sock', stage: 2 });
  t.same(parseHostEntry('tcp://h:2376?tlsverify=1&stage=3'), { host: 'tcp://h:2376', tlsVerify: true, stage: 3 });
  t.equal(formatHostEntry(parseHostEntry('unix:///a.sock?stage=2')), 'unix:///a.sock?stage=2');
  t.same(engineSpecs(['unix:///a.sock?stage=2', 'tcp://h:1'], { tlsVerify: false, certPath: undefined }).map((e) => [e.host, e.stage]), [
    ['unix:///a.sock', 2],
    ['tcp://h:1', 1],
  ], 'the entry without its query names the engine; stage 1 when unsaid');
  for (const bad of ['0', '-1', '1.5', 'two', '', '1001', '00001']) {
    t.throws(() => parseHostEntry(`unix:///a.sock?stage=${bad}`), /stage=.* is not a whole number from 1 to 1000/, `stage=${bad}`);
  }
  t.throws(() => parseHostEntry('unix:///a.sock?stage=1&stage=2'), /stage is given twice/);
  t.throws(() => parseHostEntry('unix:///a.sock?tlsverify=1'), /TLS settings apply to tcp:\/\/ and https:\/\/ engines, not unix:\/\//);
  t.throws(() => parseHostEntry('unix:///a.sock?color=red'), /unknown setting "color"/);
});

t.test('ssh:// entries (docs/ssh-hosts.md): Docker\'s scheme, the remote socket kept in the name', async (t) => {
  t.same(parseHostEntry('ssh://ops@build-1'), { host: 'ssh://ops@build-1' });
  t.same(parseHostEntry('ssh://ops@10.0.0.5:2222'), { host: 'ssh://ops@10.0.0.5:2222' });
  t.same(parseHostEntry('ssh://[fd00::5]'), { host: 'ssh://[fd00::5]' });
  t.same(parseHostEntry('ssh://ops@h?socket=/run/podman/podman.sock'), { host: 'ssh://ops@h?socket=/run/podman/podman.sock' });
  t.equal(formatHostEntry(parseHostEntry('ssh://ops@h:2222?socket=/run/user/1000/docker.sock')), 'ssh://ops@h:2222?socket=/run/user/1000/docker.sock');
  // Two engines of one machine are two hosts, told apart by their socket.
  t.same(parseHostList('ssh://ops@h ssh://ops@h?socket=/run/podman/podman.sock').map((e) => e.host), ['ssh://ops@h', 'ssh://ops@h?socket=/run/podman/podman.sock']);
  t.throws(() => parseHostList('ssh://ops@h,ssh://ops@h'), /listed twice/);
  // ssh:// settings for every engine alike: the TLS defaults do not apply.
  t.same(engineSpecs(['ssh://ops@h'], { tlsVerify: true, certPath: '/c' }).map((e) => e.host), ['ssh://ops@h']);
});

t.test('ssh:// entries that cannot work are refused with what is accepted, never echoing a password', async (t) => {
  t.throws(() => parseHostEntry('ssh://ops@h?tlsverify=1'), /unknown setting "tlsverify" \(socket and stage are known for ssh:\/\/\)/);
  t.throws(() => parseHostEntry('ssh://ops@h?socket=relative/docker.sock'), /socket= must be an absolute path/);
  t.throws(() => parseHostEntry('ssh://ops@h?socket='), /socket= must be an absolute path/);
  t.throws(() => parseHostEntry('ssh://ops@h/var/run/docker.sock'), /only \[user@\]host\[:port\] may follow ssh:\/\//);
  t.throws(() => parseHostEntry('ssh://ops@h:0'), /port out of range/);
  t.throws(() => parseHostEntry('ssh://ops@h:70000'), /not a \[user@\]host\[:port\] address/);
  t.throws(() => parseHostEntry('ssh://'), /not a \[user@\]host\[:port\] address|no host name/);
  let message = '';
  try {
    parseHostEntry('ssh://ops:s3cret-pass@h');
  } catch (err) {
    message = (err as Error).message;
  }
  t.match(message, /"ssh:\/\/ops:\*\*\*@h": a password in the address is refused: authenticate with --ssh-key/);
  t.notMatch(message, /s3cret-pass/);
  t.same(parseHostEntry('ssh://ops@h?socket=/run/d.sock&stage=2'), { host: 'ssh://ops@h?socket=/run/d.sock', stage: 2 }, 'an ssh:// entry names its stage too');
  t.equal(formatHostEntry(parseHostEntry('ssh://ops@h?socket=/run/d.sock&stage=2')), 'ssh://ops@h?socket=/run/d.sock&stage=2');
  t.throws(() => parseHostEntry('ssh://ops@h?stage=0'), /stage=0 is not a whole number/);
});
