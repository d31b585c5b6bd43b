// The one place the docker runtime decides by image store (plugins/docker/image/store.ts): which store an
// engine's /info says, and the digest a running image is known by in each (docs/engines.md).
import t from 'tap';
import { imageStoreOf, knownDigests } from '../../../plugins/docker/image/store.js';

const INDEX = `sha256:${'a'.repeat(64)}`;
const OTHER = `sha256:${'b'.repeat(64)}`;

t.test("the store as Docker 28's /info reports it", async (t) => {
  // Docker 28.5 with the containerd image store (Driver stays "overlay2"; the driver type says it).
  t.equal(imageStoreOf({ DriverStatus: [['driver-type', 'io.containerd.snapshotter.v1']] }), 'containerd');
  t.equal(imageStoreOf({ DriverStatus: [['Backing Filesystem', 'extfs'], ['Supports d_type', 'true']] }), 'classic');
  t.equal(imageStoreOf({ DriverStatus: null }), 'classic');
  t.equal(imageStoreOf({}), 'classic');
});

t.test('containerd store: an image that lost its name is known by its image ID (the pulled index or manifest)', async (t) => {
  t.same(knownDigests(true, '127.0.0.1:5121/app:1', INDEX, []), [`127.0.0.1:5121/app@${INDEX}`]);
  t.same(knownDigests(true, 'nginx:latest', INDEX, []), [`docker.io/library/nginx@${INDEX}`]);
  // Known under another name only: its own repository's entry is added.
  t.same(knownDigests(true, '127.0.0.1:5121/app:1', INDEX, [`127.0.0.1:5121/mirror@${INDEX}`]), [
    `127.0.0.1:5121/mirror@${INDEX}`,
    `127.0.0.1:5121/app@${INDEX}`,
  ]);
  const own = [`127.0.0.1:5121/app@${OTHER}`];
  t.equal(knownDigests(true, '127.0.0.1:5121/app:1', INDEX, own), own, 'an entry of its own repository is kept as it is');
});

t.test('classic or unknown store: the image ID is a config digest, never taken for a registry digest', async (t) => {
  t.same(knownDigests(false, '127.0.0.1:5121/app:1', INDEX, []), []);
  // Nothing a registry could name: an image ID that is not a digest, a reference that does not parse.
  t.same(knownDigests(true, '127.0.0.1:5121/app:1', 'sha256:short', []), []);
  t.same(knownDigests(true, 'NOT A REF', INDEX, []), []);
});
