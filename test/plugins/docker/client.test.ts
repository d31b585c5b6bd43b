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
  t.throws(() => parseDockerHost('ssh://me@host'), /unsupported Docker host/);
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
