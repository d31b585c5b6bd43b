import t from 'tap';
import { createDockerClient, normaliseApiVersion, parseDockerHost, transportOptions } from '../../../plugins/docker/engine/connect.js';

t.test('DOCKER_HOST values', async (t) => {
  t.same(parseDockerHost(undefined), { kind: 'socket', socketPath: '/var/run/docker.sock' });
  t.same(parseDockerHost(''), { kind: 'socket', socketPath: '/var/run/docker.sock' });
  t.same(parseDockerHost('unix:///tmp/x/docker.sock'), { kind: 'socket', socketPath: '/tmp/x/docker.sock' });
  t.same(parseDockerHost('tcp://127.0.0.1:2375'), { kind: 'tcp', protocol: 'http', host: '127.0.0.1', port: 2375 });
  t.same(parseDockerHost('tcp://127.0.0.1'), { kind: 'tcp', protocol: 'http', host: '127.0.0.1', port: 2375 });
  t.same(parseDockerHost('tcp://[::1]:2376', true), { kind: 'tcp', protocol: 'https', host: '::1', port: 2376 });
  t.same(parseDockerHost('tcp://127.0.0.1', true), { kind: 'tcp', protocol: 'https', host: '127.0.0.1', port: 2376 });
  t.same(parseDockerHost('https://127.0.0.1:9999'), { kind: 'tcp', protocol: 'https', host: '127.0.0.1', port: 9999 });
  t.throws(() => parseDockerHost('ftp://me@host'), /unsupported Docker host/);
});

t.test('ssh:// values (docs/ssh-hosts.md): user, host, port and the remote socket', async (t) => {
  t.same(parseDockerHost('ssh://me@host'), { kind: 'ssh', name: 'ssh://me@host', user: 'me', host: 'host', port: 22, socketPath: '/var/run/docker.sock' });
  t.same(parseDockerHost('ssh://10.0.0.5:2222?socket=/run/podman/podman.sock'), {
    kind: 'ssh', name: 'ssh://10.0.0.5:2222?socket=/run/podman/podman.sock', user: undefined, host: '10.0.0.5', port: 2222, socketPath: '/run/podman/podman.sock',
  });
  t.same(parseDockerHost('ssh://ops@[fd00::5]:22'), { kind: 'ssh', name: 'ssh://ops@[fd00::5]:22', user: 'ops', host: 'fd00::5', port: 22, socketPath: '/var/run/docker.sock' });
  const refused = (() => {
    try {
      parseDockerHost('ssh://me:hunter2@host');
    } catch (err) {
      return (err as Error).message;
    }
    return '';
  })();
  t.match(refused, /password in the address is refused/);
  t.notMatch(refused, /hunter2/, 'the password is never repeated');
  // An ssh:// engine without its key and known_hosts settings cannot be made (they are read at start).
  t.throws(() => createDockerClient({ host: 'ssh://me@host' }), /needs its SSH settings/);
});

t.test('API versions become the path prefix', async (t) => {
  t.equal(normaliseApiVersion('1.41'), 'v1.41');
  t.equal(normaliseApiVersion('v1.44'), 'v1.44');
  t.equal(normaliseApiVersion(''), undefined);
  t.equal(normaliseApiVersion(undefined), undefined);
});

t.test('connection settings: the socket or host and port, the version prefix, TLS only for https', async (t) => {
  t.same(transportOptions({ host: 'unix:///tmp/d.sock' }), {
    endpoint: { kind: 'socket', socketPath: '/tmp/d.sock' },
    tls: undefined,
    version: undefined,
  });
  t.same(transportOptions({ host: 'tcp://127.0.0.1:2375', apiVersion: '1.41', certPath: '/nonexistent' }), {
    endpoint: { kind: 'tcp', protocol: 'http', host: '127.0.0.1', port: 2375 },
    tls: undefined,
    version: 'v1.41',
  });
  t.throws(() => transportOptions({ host: 'tcp://127.0.0.1', tlsVerify: true, certPath: '/nonexistent' }), /ENOENT/);
  t.equal(createDockerClient({ host: 'tcp://127.0.0.1:2375' }).host, 'tcp://127.0.0.1:2375');
  t.equal(createDockerClient({}).host, 'unix:///var/run/docker.sock');
});
