import t from 'tap';
import { imageNameOf } from '../../../plugins/docker/target.js';

t.test('image names: :latest for untagged names, the zodiac label wins', async (t) => {
  t.equal(imageNameOf('nginx', {}), 'nginx:latest');
  t.equal(imageNameOf('127.0.0.1:5101/demo/app', {}), '127.0.0.1:5101/demo/app:latest');
  t.equal(imageNameOf('127.0.0.1:5101/demo/app:1.2', {}), '127.0.0.1:5101/demo/app:1.2');
  t.equal(imageNameOf(`nginx@sha256:${'a'.repeat(64)}`, {}), `nginx@sha256:${'a'.repeat(64)}`);
  t.equal(imageNameOf(`sha256:${'b'.repeat(64)}`, {}), `sha256:${'b'.repeat(64)}`, 'an image id stays as is');
  t.equal(imageNameOf('nginx', { 'com.centurylinklabs.zodiac.original-image': 'registry.local/nginx:1' }), 'registry.local/nginx:1');
});
