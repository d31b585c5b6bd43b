// The engine profile (plugins/docker/engine/profile.ts, docs/engines.md#the-engine-profile): each difference between
// engines answered by name from what the engine reports, from `/version` and `/info` answers recorded from the
// engines of the test environment (Docker 20.10, 26.1, 28.5 with and without the containerd store, Podman 4.3).
// test/e2e/engine-profile.test.ts asks the real engines.
import t from 'tap';
import { apiAtLeast, engineProfile, isPodmanVersion } from '../../../plugins/docker/engine/profile.js';

const DOCKER_COMPONENTS = [{ Name: 'Engine' }, { Name: 'containerd' }, { Name: 'runc' }, { Name: 'docker-init' }];
const OVERLAY_INFO = { DriverStatus: [['Backing Filesystem', 'extfs'], ['Supports d_type', 'true'], ['Using metacopy', 'false']] };
const STORE_INFO = { DriverStatus: [['driver-type', 'io.containerd.snapshotter.v1']] };

t.test('Docker 28.5 with the containerd image store: the image ID is the pulled digest; random MACs, gateway priority', async (t) => {
  const p = engineProfile({ version: { Version: '28.5.1', ApiVersion: '1.51', Components: DOCKER_COMPONENTS }, info: STORE_INFO });
  t.equal(p.kind, 'docker');
  t.equal(p.version, '28.5.1');
  t.equal(p.apiVersion, '1.51');
  t.equal(p.imageStore, 'containerd');
  t.equal(p.keepsImageIdAsManifestDigest, true);
  t.equal(p.reportsImageEvents, true);
  t.equal(p.forcedImageRemovalRemovesContainers, false);
  t.equal(p.showsOwnDefaultsInInspect, false);
  t.equal(p.showsUnsetStopTimeoutAsZero, false);
  t.equal(p.showsCpuLimitTwice, false);
  t.equal(p.createsWithSeveralNetworks, true);
  t.equal(p.takesEndpointMacAddress, true);
  t.equal(p.generatesRandomMacs, true);
  t.equal(p.supportsGatewayPriority, true);
  t.ok(Object.isFrozen(p), 'made once, never changed');
});

t.test('Docker 28.5 classic and 26.1: a config digest for an image ID; 26 still generates 02:42 MACs', async (t) => {
  const classic = engineProfile({ version: { Version: '28.5.1', ApiVersion: '1.51', Components: DOCKER_COMPONENTS }, info: OVERLAY_INFO });
  t.equal(classic.imageStore, 'classic');
  t.equal(classic.keepsImageIdAsManifestDigest, false);
  const d26 = engineProfile({ version: { Version: '26.1.5+dfsg1', ApiVersion: '1.45', Components: DOCKER_COMPONENTS }, info: OVERLAY_INFO });
  t.equal(d26.createsWithSeveralNetworks, true);
  t.equal(d26.takesEndpointMacAddress, true);
  t.equal(d26.generatesRandomMacs, false);
  t.equal(d26.supportsGatewayPriority, false);
});

t.test('Docker 20.10 (API 1.41): one network at create time, no endpoint MAC', async (t) => {
  const p = engineProfile({ version: { Version: '20.10.24+dfsg1', ApiVersion: '1.41', Components: DOCKER_COMPONENTS }, info: OVERLAY_INFO });
  t.equal(p.createsWithSeveralNetworks, false);
  t.equal(p.takesEndpointMacAddress, false);
  t.equal(p.generatesRandomMacs, false);
});

t.test('a pinned API version decides the API answers, whatever the engine speaks', async (t) => {
  const version = { Version: '28.5.1', ApiVersion: '1.51', Components: DOCKER_COMPONENTS };
  const pinned = engineProfile({ version, info: OVERLAY_INFO, pinnedApiVersion: 'v1.41' });
  t.equal(pinned.apiVersion, '1.41');
  t.equal(pinned.createsWithSeveralNetworks, false);
  t.equal(pinned.supportsGatewayPriority, false);
});

t.test("Podman's compatible API: its own values in an inspect, no forced removal, no image facts kept, classic store", async (t) => {
  const version = { Version: '4.3.1', ApiVersion: '1.41', Components: [{ Name: 'Podman Engine' }, { Name: 'Conmon' }, { Name: 'OCI Runtime (crun)' }] };
  t.ok(isPodmanVersion(version));
  // Its /info says nothing of a containerd snapshotter: the store is classic without asking.
  const p = engineProfile({ version });
  t.equal(p.kind, 'podman');
  t.equal(p.imageStore, 'classic');
  t.equal(p.keepsImageIdAsManifestDigest, false);
  t.equal(p.reportsImageEvents, false);
  t.equal(p.forcedImageRemovalRemovesContainers, true);
  t.equal(p.showsOwnDefaultsInInspect, true);
  t.equal(p.showsUnsetStopTimeoutAsZero, true);
  t.equal(p.showsCpuLimitTwice, true);
});

t.test('an engine whose /info cannot be read: store unknown, never taken for containerd', async (t) => {
  const p = engineProfile({ version: { Version: '28.5.1', ApiVersion: '1.51', Components: DOCKER_COMPONENTS } });
  t.equal(p.imageStore, 'unknown');
  t.equal(p.keepsImageIdAsManifestDigest, false);
  t.equal(p.kind, 'docker');
});

t.test('the engine names itself in /version; API versions compare by number', async (t) => {
  t.notOk(isPodmanVersion({ ApiVersion: '1.43', Components: DOCKER_COMPONENTS }));
  t.notOk(isPodmanVersion({ ApiVersion: '1.43', Components: null }));
  t.ok(apiAtLeast('1.44', '1.44'));
  t.ok(apiAtLeast('v1.100', '1.48'), 'not compared as text');
  t.notOk(apiAtLeast('1.9', '1.44'));
  t.notOk(apiAtLeast('', '1.44'), 'an engine that reports no version is taken for an old one');
});
