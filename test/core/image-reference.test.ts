import t from 'tap';
import { familiarName, formatImageReference, parseImageReference } from '../../core/image-reference.js';

t.test('Docker Hub names are normalised as docker does', async (t) => {
  t.same(parseImageReference('nginx'), { registry: 'docker.io', repository: 'library/nginx', tag: 'latest', digest: undefined });
  t.same(parseImageReference('index.docker.io/user/app:1'), { registry: 'docker.io', repository: 'user/app', tag: '1', digest: undefined });
  t.equal(formatImageReference(parseImageReference('busybox:1.36')), 'docker.io/library/busybox:1.36');
  t.equal(familiarName(parseImageReference('docker.io/library/nginx:1.25')), 'nginx:1.25');
});

t.test('registries with ports and localhost are hosts, not namespaces', async (t) => {
  const ref = parseImageReference('127.0.0.1:5101/demo/app');
  t.equal(ref.registry, '127.0.0.1:5101');
  t.equal(ref.repository, 'demo/app');
  t.equal(ref.tag, 'latest');
  t.equal(parseImageReference('localhost/app:x').registry, 'localhost');
  t.equal(parseImageReference('ghcr.io/org/app:main').registry, 'ghcr.io');
});

t.test('digests pin the reference and suppress the default tag', async (t) => {
  const digest = 'sha256:' + 'a'.repeat(64);
  const ref = parseImageReference(`ghcr.io/org/app@${digest}`);
  t.equal(ref.digest, digest);
  t.equal(ref.tag, undefined);
  t.equal(parseImageReference(`app:1@${digest}`).tag, '1');
});

t.test('malformed references are refused with the reason', async (t) => {
  t.throws(() => parseImageReference('UPPER/case'), /malformed repository component/);
  t.throws(() => parseImageReference('app@sha256:short'), /malformed digest/);
  t.throws(() => parseImageReference(''), /empty/);
});
