// Docker 29 (API 1.52) removed fields older engines still send (docs/engines.md#docker-29): the top-level
// NetworkSettings addresses, the image's Container/ContainerConfig/VirtualSize, and the legacy /events fields
// (status, id, from). Tidewatch reads none of them: inspect documents without them give the same answers, and a
// read of any of them throws here. The image-facts cache never parses an event (any event drops the cache).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import t from 'tap';
import { recreateOptions, splitNetworks } from '../../../plugins/docker/replace/recreate-config.js';
import { dockerProfile } from '../../helpers/engine-profile.js';
import { imageFactsOfInspect, toTarget } from '../../../plugins/docker/target.js';

const REMOVED_NETWORK_SETTINGS = [
  'Bridge', 'EndpointID', 'Gateway', 'GlobalIPv6Address', 'GlobalIPv6PrefixLen', 'HairpinMode', 'IPAddress', 'IPPrefixLen',
  'IPv6Gateway', 'LinkLocalIPv6Address', 'LinkLocalIPv6PrefixLen', 'MacAddress', 'SecondaryIPAddresses', 'SecondaryIPv6Addresses',
];
const REMOVED_IMAGE = ['Container', 'ContainerConfig', 'VirtualSize'];

/** `value`, whose `removed` keys throw when read (the document an API 1.52 engine sends has none of them). */
function guarded<T extends object>(value: T, removed: readonly string[], where: string): T {
  return new Proxy(value, {
    get(target, key, receiver) {
      if (typeof key === 'string' && removed.includes(key)) throw new Error(`read ${where}.${key}, which API 1.52 removed`);
      return Reflect.get(target, key, receiver);
    },
    has(target, key) {
      if (typeof key === 'string' && removed.includes(key)) throw new Error(`asked for ${where}.${key}, which API 1.52 removed`);
      return Reflect.has(target, key);
    },
  });
}

// A container inspect as Docker 28.5 sends it for API 1.52 (captured, ids shortened): per-endpoint settings only.
const container = {
  Id: 'c'.repeat(64),
  Name: '/web',
  Image: `sha256:${'a'.repeat(64)}`,
  Config: { Hostname: 'cccccccccccc', Image: '127.0.0.1:5121/app:1', Env: ['PATH=/bin'], Cmd: ['/bin/sleep', '3600'], Labels: {} },
  HostConfig: { NetworkMode: 'front', PortBindings: { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '28080' }] } },
  NetworkSettings: guarded(
    {
      SandboxID: 's'.repeat(64),
      Ports: {},
      Networks: {
        front: { Aliases: ['web'], MacAddress: '42:6e:87:6a:42:5e', NetworkID: 'n1', EndpointID: 'e1', Gateway: '', IPAddress: '172.21.0.2', IPPrefixLen: 16, GwPriority: 0, DNSNames: ['web', 'cccccccccccc'] },
        back: { Aliases: ['api'], MacAddress: '9e:11:22:33:44:55', NetworkID: 'n2', EndpointID: 'e2', Gateway: '', IPAddress: '172.22.0.2', IPPrefixLen: 16, GwPriority: 0 },
      },
    },
    REMOVED_NETWORK_SETTINGS,
    'NetworkSettings',
  ),
  State: { Running: true, Status: 'running' },
} as unknown as Docker.ContainerInspectInfo;

const image = guarded(
  {
    Id: `sha256:${'a'.repeat(64)}`,
    RepoTags: ['127.0.0.1:5121/app:1'],
    RepoDigests: [`127.0.0.1:5121/app@sha256:${'a'.repeat(64)}`],
    Os: 'linux',
    Architecture: 'amd64',
    Size: 1234,
    Config: { Env: ['PATH=/bin'], Cmd: ['/bin/sleep', '3600'], Labels: { 'org.example': 'x' } },
  },
  REMOVED_IMAGE,
  'image',
) as unknown as Docker.ImageInspectInfo;

t.test('a replacement is made from an API 1.52 container inspect', async (t) => {
  const create = recreateOptions(container, image.Config as never, { image: '127.0.0.1:5121/app:1', profile: dockerProfile('1.52', 'containerd') });
  t.same(Object.keys(create.NetworkingConfig?.EndpointsConfig ?? {}).sort(), ['back', 'front'], 'both networks, from the endpoints');
  t.same(create.NetworkingConfig?.EndpointsConfig?.['front']?.Aliases, ['web']);
  t.same(splitNetworks(create, dockerProfile('1.52')).connectLater, []);
  t.same(create.HostConfig?.PortBindings, { '8080/tcp': [{ HostIp: '127.0.0.1', HostPort: '28080' }] });
});

t.test('a target is made from an API 1.52 image inspect', async (t) => {
  const target = toTarget({
    container: { id: container.Id, name: 'web', configImage: '127.0.0.1:5121/app:1', imageId: image.Id, labels: {}, state: 'running' },
    image: imageFactsOfInspect(image),
    dependsOn: [],
    isSelf: false,
  });
  t.same(target.repoDigests, image.RepoDigests);
  t.same(target.imageLabels, { 'org.example': 'x' });
});

t.test('no source file reads a field API 1.52 removed', async (t) => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (path.endsWith('.ts')) files.push(path);
    }
  };
  for (const dir of ['core', 'plugins', 'server']) walk(dir);
  const removed = [
    ...REMOVED_NETWORK_SETTINGS.map((field) => new RegExp(`NetworkSettings\\??\\.${field}\\b`)),
    /\.ContainerConfig\b/,
    /\.VirtualSize\b/,
    // The legacy event fields: an event is read by Type/Action/Actor, never by status/from.
    /\b(event|ev|message)\??\.(status|from)\b/,
  ];
  const hits = files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .map((line, i) => ({ line, at: `${file}:${i + 1}` }))
      .filter(({ line }) => removed.some((pattern) => pattern.test(line)))
      .map(({ at }) => at),
  );
  t.same(hits, [], 'no reads of removed fields');
});
