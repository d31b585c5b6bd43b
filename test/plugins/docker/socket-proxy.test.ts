// A socket proxy's refusal (docs/security.md#when-the-proxy-refuses-a-call): the call's template and the switches,
// from the transport's own answer; a 403 with the Engine's JSON message stays the Engine's error.
import { createServer, type Server } from 'node:http';
import t from 'tap';
import { createDockerClient } from '../../../plugins/docker/engine/connect.js';
import { isSocketProxyRefusal } from '../../../plugins/docker/engine/transport.js';
import { endpointTemplate, proxySwitches, refusalMessage } from '../../../plugins/docker/engine/socket-proxy.js';

t.test('the Engine API path templates', async (t) => {
  const cases: [string, string][] = [
    ['/_ping', '/_ping'],
    ['/v1.41/version', '/version'],
    ['/containers/json?all=true&filters=%7B%7D', '/containers/json'],
    ['/containers/create?name=web', '/containers/create'],
    ['/containers/0123abcd/json', '/containers/{id}/json'],
    ['/v1.45/containers/web/stop?t=10', '/containers/{id}/stop'],
    ['/containers/0123abcd?force=true', '/containers/{id}'],
    ['/containers/0123abcd/exec', '/containers/{id}/exec'],
    ['/exec/feed/start', '/exec/{id}/start'],
    ['/images/json', '/images/json'],
    ['/images/create?fromImage=a', '/images/create'],
    ['/images/127.0.0.1:5000/team/app:1.2/json', '/images/{name}/json'],
    ['/images/sha256:abc', '/images/{name}'],
    ['/v1.41/images/127.0.0.1:5000/team/app@sha256:abc/tag?repo=127.0.0.1%3A5000%2Fteam%2Fapp&tag=1.3', '/images/{name}/tag'],
    ['/networks/front/connect', '/networks/{id}/connect'],
    ['/services/svc/update?version=3', '/services/{id}/update'],
    ['/events?since=1', '/events'],
  ];
  for (const [path, template] of cases) t.equal(endpointTemplate(path), template, path);
});

t.test('the switches: the section, and POST for any method but GET and HEAD', async (t) => {
  t.same(proxySwitches('GET', '/_ping'), ['PING']);
  t.same(proxySwitches('HEAD', '/images/{name}/json'), ['IMAGES']);
  t.same(proxySwitches('POST', '/containers/{id}/stop'), ['CONTAINERS', 'POST']);
  t.same(proxySwitches('DELETE', '/images/{name}'), ['IMAGES', 'POST']);
  t.equal(
    refusalMessage('POST', '/v1.41/containers/abc/stop?t=5').message,
    'the Docker socket proxy refused POST /containers/{id}/stop (403): allow CONTAINERS and POST',
  );
});

async function serve(status: number, type: string, body: string): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

t.test('a 403 with an HTML page is the proxy refusing; with the Engine JSON, the Engine', async (t) => {
  const page = '<html><body><h1>403 Forbidden</h1>\nRequest forbidden by administrative rules.\n</body></html>\n';
  const proxy = await serve(403, 'text/html', page);
  t.teardown(() => proxy.close());
  const client = createDockerClient({ host: `tcp://127.0.0.1:${(proxy.address() as { port: number }).port}`, apiVersion: '1.41' });
  t.teardown(() => client.close());
  const err = await client.getContainer('web').stop({ t: 5 }).catch((e: unknown) => e);
  t.ok(isSocketProxyRefusal(err), 'a SocketProxyRefusal');
  t.match(err, {
    code: 'TW_ERR_DOCKER_PROXY_REFUSED',
    statusCode: 502,
    endpoint: 'POST /containers/{id}/stop',
    switches: ['CONTAINERS', 'POST'],
    message: 'the Docker socket proxy refused POST /containers/{id}/stop (403): allow CONTAINERS and POST',
  });
  t.notMatch((err as Error).message, /html|Forbidden/);
  const pull = await client.pull('127.0.0.1:5000/app:1', undefined).catch((e: unknown) => e);
  t.match(pull, { message: 'the Docker socket proxy refused POST /images/create (403): allow IMAGES and POST' });

  const engine = await serve(403, 'application/json', JSON.stringify({ message: 'authorization denied by plugin opa' }));
  t.teardown(() => engine.close());
  const direct = createDockerClient({ host: `tcp://127.0.0.1:${(engine.address() as { port: number }).port}` });
  t.teardown(() => direct.close());
  const denied = await direct.listContainers().catch((e: unknown) => e);
  t.notOk(isSocketProxyRefusal(denied), "the Engine's own 403 (an authorization plugin) keeps its message");
  t.match(denied, { statusCode: 403, message: 'authorization denied by plugin opa' });
});
