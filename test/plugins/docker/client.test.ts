import t from 'tap';
import { dockerodeOptions, normaliseApiVersion, parseDockerHost } from '../../../plugins/docker/client.js';

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

t.test('API versions are prefixed the way docker-modem wants them', async (t) => {
  t.equal(normaliseApiVersion('1.41'), 'v1.41');
  t.equal(normaliseApiVersion('v1.44'), 'v1.44');
  t.equal(normaliseApiVersion(''), undefined);
  t.equal(normaliseApiVersion(undefined), undefined);
});

t.test('every connection field is explicit, so the process environment cannot override it', async (t) => {
  const socket = dockerodeOptions({ host: 'unix:///tmp/d.sock' });
  t.equal(socket.socketPath, '/tmp/d.sock');
  t.ok('host' in socket && socket.host === undefined, 'host is set to undefined, not left out');
  const tcp = dockerodeOptions({ host: 'tcp://127.0.0.1:2375', apiVersion: '1.41' });
  t.match(tcp, { host: '127.0.0.1', port: 2375, protocol: 'http', version: 'v1.41', socketPath: undefined });
});
