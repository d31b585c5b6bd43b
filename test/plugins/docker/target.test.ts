import t from 'tap';
import { imageNameOf } from '../../../plugins/docker/target.js';

t.test('image names: :latest for untagged names, the zodiac label names only an image id', async (t) => {
  t.equal(imageNameOf('nginx', {}), 'nginx:latest');
  t.equal(imageNameOf('127.0.0.1:5101/demo/app', {}), '127.0.0.1:5101/demo/app:latest');
  t.equal(imageNameOf('127.0.0.1:5101/demo/app:1.2', {}), '127.0.0.1:5101/demo/app:1.2');
  t.equal(imageNameOf(`nginx@sha256:${'a'.repeat(64)}`, {}), `nginx@sha256:${'a'.repeat(64)}`);
  t.equal(imageNameOf(`sha256:${'b'.repeat(64)}`, {}), `sha256:${'b'.repeat(64)}`, 'an image id stays as is');
  const zodiac = { 'com.centurylinklabs.zodiac.original-image': 'registry.local/nginx:1' };
  t.equal(imageNameOf(`sha256:${'b'.repeat(64)}`, zodiac), 'registry.local/nginx:1', 'created on an id: the label names it');
  t.equal(imageNameOf('b'.repeat(64), zodiac), 'registry.local/nginx:1');
  // A label a rollback left behind must not rename a container replaced since (the downgrade loop).
  t.equal(imageNameOf('registry.local/nginx:2', zodiac), 'registry.local/nginx:2', 'created on a name: that name');
});
