import t from 'tap';
import type Docker from 'dockerode';
import {
  normaliseLinks,
  recreateOptions,
  splitNetworks,
  type ImageDefaults,
} from '../../../plugins/docker/replace/recreate-config.js';
import { apiAtLeast } from '../../../plugins/docker/engine/profile.js';
import { dockerProfile } from '../../helpers/engine-profile.js';

const ID = 'abcdef012345'.padEnd(64, '0');

function inspected(overrides: { Config?: object; HostConfig?: object; Networks?: object } = {}): Docker.ContainerInspectInfo {
  return {
    Id: ID,
    Name: '/web',
    Image: 'sha256:old',
    Config: {
      Hostname: 'abcdef012345',
      Env: ['PATH=/bin', 'FOO=bar'],
      Cmd: ['/bin/sleep', '3600'],
      Entrypoint: null,
      Image: 'registry.local/web',
      Labels: { 'from.image': 'x', 'user.label': 'y', 'overridden': 'mine', tidewatch: 'true' },
      Volumes: { '/image-vol': {}, '/user-vol': {} },
      ExposedPorts: { '80/tcp': {} },
      WorkingDir: '/app',
      User: '',
      StopSignal: 'SIGQUIT',
      Healthcheck: { Test: ['CMD', 'true'], Interval: 5, Retries: 7 },
      ...overrides.Config,
    },
    HostConfig: {
      NetworkMode: 'appnet',
      RestartPolicy: { Name: 'always', MaximumRetryCount: 0 },
      Binds: ['/srv:/srv'],
      PortBindings: { '8080/tcp': [{ HostIp: '', HostPort: '8080' }] },
      Links: ['/db:/web/db'],
      ContainerIDFile: '/tmp/cid',
      Devices: [{ PathOnHost: '/dev/fuse', PathInContainer: '/dev/fuse', CgroupPermissions: '' }],
      ...overrides.HostConfig,
    },
    NetworkSettings: {
      Networks: overrides.Networks ?? {
        appnet: { Aliases: ['web', 'abcdef012345'], IPAMConfig: { IPv4Address: '10.0.0.9' }, MacAddress: '02:42:0a:00:00:09', NetworkID: 'n1' },
        other: { Aliases: null, MacAddress: '5a:00:00:00:00:01', NetworkID: 'n2' },
      },
    },
  } as unknown as Docker.ContainerInspectInfo;
}

const image: ImageDefaults = {
  Env: ['PATH=/bin'],
  Cmd: ['/bin/sleep', '3600'],
  Entrypoint: null,
  Labels: { 'from.image': 'x', overridden: 'image', tidewatch: 'true' },
  Volumes: { '/image-vol': {} },
  ExposedPorts: { '80/tcp': {} },
  WorkingDir: '/app',
  User: '',
  StopSignal: 'SIGQUIT',
  Healthcheck: { Test: ['CMD', 'true'], Interval: 5, Retries: 3 },
};

t.test("the image's defaults are taken out, the user's settings kept", async (t) => {
  const create = recreateOptions(inspected(), image, { image: 'registry.local/web:latest', profile: dockerProfile('1.41') });
  t.equal(create.Image, 'registry.local/web:latest');
  t.same(create.Env, ['FOO=bar']);
  t.same(create.Labels, { 'user.label': 'y', overridden: 'mine', tidewatch: 'true' }, 'the own-container label always stays');
  t.same(create.Volumes, { '/user-vol': {} });
  t.same(create.ExposedPorts, { '8080/tcp': {} }, 'published ports stay exposed');
  t.notOk('Cmd' in create, 'the image command is not pinned');
  t.notOk('Entrypoint' in create);
  t.notOk('WorkingDir' in create);
  t.notOk('StopSignal' in create);
  t.same(create.Healthcheck, { Retries: 7 }, 'only the overridden health check fields');
  t.notOk('Hostname' in create, "a default hostname (the old container's short id) stays default");
  const named = recreateOptions(inspected({ Config: { Hostname: 'web-1' } }), image, { image: 'x:1', profile: dockerProfile('1.41') });
  t.equal(named.Hostname, 'web-1', 'a chosen hostname stays');
});

t.test('an entrypoint cleared with --entrypoint "" over an image ENTRYPOINT stays cleared', async (t) => {
  const withEntrypoint: ImageDefaults = { ...image, Entrypoint: ['/docker-entrypoint.sh'] };
  const cleared = recreateOptions(inspected({ Config: { Entrypoint: null, Cmd: ['/bin/sh', '-c', 'run'] } }), withEntrypoint, {
    image: 'x:1',
    profile: dockerProfile('1.41'),
  });
  t.same(cleared.Entrypoint, [''], 'asked for none, as the CLI does');
  t.same(cleared.Cmd, ['/bin/sh', '-c', 'run']);
  const kept = recreateOptions(inspected({ Config: { Entrypoint: ['/docker-entrypoint.sh'] } }), withEntrypoint, { image: 'x:1', profile: dockerProfile('1.41') });
  t.notOk('Entrypoint' in kept, "the image's own entrypoint is left to the new image");
});

t.test('HostConfig whole, links normalised, CID file dropped, device permissions defaulted', async (t) => {
  const create = recreateOptions(inspected(), image, { image: 'x:1', profile: dockerProfile('1.41') });
  t.match(create.HostConfig, { NetworkMode: 'appnet', RestartPolicy: { Name: 'always' }, Binds: ['/srv:/srv'] });
  t.same(create.HostConfig?.Links, ['db:db']);
  t.notOk(create.HostConfig && 'ContainerIDFile' in create.HostConfig);
  t.equal((create.HostConfig?.Devices as Docker.DeviceMapping[])[0]?.CgroupPermissions, 'rwm');
});

t.test('networks keep aliases and static IPs; the old short id and generated MACs go', async (t) => {
  const old = recreateOptions(inspected(), image, { image: 'x:1', profile: dockerProfile('1.41') });
  t.same(old.NetworkingConfig?.EndpointsConfig, {
    appnet: { Aliases: ['web'], IPAMConfig: { IPv4Address: '10.0.0.9' } },
    other: {},
  });
  const modern = recreateOptions(inspected(), image, { image: 'x:1', profile: dockerProfile('1.44') });
  t.equal(modern.NetworkingConfig?.EndpointsConfig?.['other']?.MacAddress, '5a:00:00:00:00:01', 'a chosen MAC stays on 1.44+');
  t.notOk(modern.NetworkingConfig?.EndpointsConfig?.['appnet']?.MacAddress, 'a generated one never');

  const split = splitNetworks(old, dockerProfile('1.41'));
  t.same(Object.keys(split.create.NetworkingConfig?.EndpointsConfig ?? {}), ['appnet'], 'the network mode is created with');
  t.same(split.connectLater.map(([n]) => n), ['other']);
  t.same(splitNetworks(modern, dockerProfile('1.44')).connectLater, [], 'all at create time on 1.44+');
});

// As Docker 28.5 (API 1.51) inspects them: a MAC the user set on the container's own network shows in the
// deprecated Config.MacAddress too; a generated one is random (not 02:42 + IP) and Config.MacAddress is absent.
t.test('Docker 28+: a MAC is kept exactly when the user set one', async (t) => {
  const generated = { MacAddress: '42:6e:87:6a:42:5e', NetworkID: 'n1' };
  const mac = (create: Docker.ContainerCreateOptions, network: string) => create.NetworkingConfig?.EndpointsConfig?.[network]?.MacAddress;
  const bare = recreateOptions(inspected({ Networks: { appnet: generated, other: { MacAddress: '9e:11:22:33:44:55' } } }), image, { image: 'x:1', profile: dockerProfile('1.51') });
  t.notOk(mac(bare, 'appnet'), 'a generated MAC on its own network is not pinned');
  t.notOk(mac(bare, 'other'), 'nor on another network');
  const chosen = recreateOptions(
    inspected({ Config: { MacAddress: '02:00:5e:77:00:01' }, Networks: { appnet: { MacAddress: '02:00:5e:77:00:01', NetworkID: 'n1' } } }),
    image,
    { image: 'x:1', profile: dockerProfile('1.51') },
  );
  t.equal(mac(chosen, 'appnet'), '02:00:5e:77:00:01', "the user's MAC stays");
  // Docker 26 (API 1.45): generated ones are 02:42 + IP, so a MAC on another network is the user's.
  const d26 = recreateOptions(inspected({ Networks: { appnet: { MacAddress: '02:42:ac:13:00:02' }, other: { MacAddress: '02:00:5e:77:00:05' } } }), image, { image: 'x:1', profile: dockerProfile('1.45') });
  t.notOk(mac(d26, 'appnet'));
  t.equal(mac(d26, 'other'), '02:00:5e:77:00:05');
});

t.test("Docker 28+: a network's gateway priority is kept; the default 0 is not written", async (t) => {
  const networks = { Networks: { appnet: { GwPriority: 10, NetworkID: 'n1' }, other: { GwPriority: 0, NetworkID: 'n2' } } };
  const priority = (create: Docker.ContainerCreateOptions, network: string) =>
    (create.NetworkingConfig?.EndpointsConfig?.[network] as { GwPriority?: number } | undefined)?.GwPriority;
  const d28 = recreateOptions(inspected(networks), image, { image: 'x:1', profile: dockerProfile('1.51') });
  t.equal(priority(d28, 'appnet'), 10);
  t.equal(priority(d28, 'other'), undefined);
  t.equal(priority(recreateOptions(inspected(networks), image, { image: 'x:1', profile: dockerProfile('1.47') }), 'appnet'), undefined, 'not before API 1.48');
});

t.test('user commands and entrypoints stay; container networking drops the hostname', async (t) => {
  const custom = recreateOptions(inspected({ Config: { Cmd: ['/bin/sh', '-c', 'run'], Entrypoint: ['/init'] } }), image, {
    image: 'x:1',
    profile: dockerProfile('1.41'),
  });
  t.same(custom.Cmd, ['/bin/sh', '-c', 'run']);
  t.same(custom.Entrypoint, ['/init']);
  const shared = recreateOptions(inspected({ HostConfig: { NetworkMode: 'container:vpn' }, Networks: {} }), image, {
    image: 'x:1',
    profile: dockerProfile('1.41'),
  });
  t.notOk('Hostname' in shared);
  const noImage = recreateOptions(inspected(), undefined, { image: 'x:1', profile: dockerProfile('1.41') });
  t.same(noImage.Env, ['PATH=/bin', 'FOO=bar'], 'without the old image nothing is subtracted');
});

t.test('small helpers', async (t) => {
  t.same(normaliseLinks(['/db:/web/db', 'cache:c', '']), ['db:db', 'cache:c']);
  t.ok(apiAtLeast('1.44', '1.44'));
  t.ok(apiAtLeast('v1.45', '1.44'));
  t.notOk(apiAtLeast('1.41', '1.44'));
  t.ok(apiAtLeast('2.0', '1.44'));
});
