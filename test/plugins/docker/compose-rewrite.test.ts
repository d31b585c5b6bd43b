// compose-rewrite.ts: one service's image is rewritten in place, everything else byte for byte as it was;
// interpolated, inherited (anchor, merge key, extends) and changed images are refused (docs/compose.md).
import t from 'tap';
import { isInterpolated, nextImageReference, rewriteServiceImage } from '../../../plugins/docker/compose/rewrite.js';

const file = `# The stack (do not reorder)
x-common: &common
  restart: unless-stopped
  labels:
    team: web   # owner

services:
  web:
    <<: *common
    image: nginx:1.25.3-alpine   # pinned on purpose
    ports: ["8080:80"]

  api:
    image: "registry.local:5000/acme/api:1.4.0"
    depends_on: [web]

  worker:
    image: 'registry.local:5000/acme/api:1.4.0'
  db:
    image: postgres:\${PG_TAG:-16.4}
  shared-a:
    image: &img redis:7.2.1
  shared-b:
    image: *img
  merged:
    <<: { image: busybox:1.36.0 }
  child:
    extends: { service: web }
`;

t.test('the service image is replaced, every other byte kept', (t) => {
  const out = rewriteServiceImage(file, 'web', 'nginx:1.25.3-alpine', 'nginx:1.25.4-alpine');
  t.equal(out.kind, 'rewritten');
  if (out.kind !== 'rewritten') return t.end();
  t.equal(out.text, file.replace('image: nginx:1.25.3-alpine   #', 'image: nginx:1.25.4-alpine   #'));
  t.end();
});

t.test('quoting style is kept', (t) => {
  const dq = rewriteServiceImage(file, 'api', 'registry.local:5000/acme/api:1.4.0', 'registry.local:5000/acme/api:1.5.0');
  t.equal(dq.kind === 'rewritten' && dq.text, file.replace('"registry.local:5000/acme/api:1.4.0"', '"registry.local:5000/acme/api:1.5.0"'));
  const sq = rewriteServiceImage(file, 'worker', 'registry.local:5000/acme/api:1.4.0', 'registry.local:5000/acme/api:1.5.0');
  t.equal(sq.kind === 'rewritten' && sq.text, file.replace("'registry.local:5000/acme/api:1.4.0'", "'registry.local:5000/acme/api:1.5.0'"));
  t.end();
});

t.test('only when the file still names the old reference exactly', (t) => {
  t.same(rewriteServiceImage(file, 'web', 'nginx:1.25.2-alpine', 'nginx:1.25.4-alpine'), { kind: 'mismatch', found: 'nginx:1.25.3-alpine' });
  t.same(rewriteServiceImage(file, 'web', 'docker.io/library/nginx:1.25.3-alpine', 'nginx:1.25.4-alpine'), {
    kind: 'mismatch',
    found: 'nginx:1.25.3-alpine',
  });
  t.end();
});

t.test('interpolated, aliased, merged and extended images are never rewritten', (t) => {
  t.same(rewriteServiceImage(file, 'db', 'postgres:16.4', 'postgres:16.5'), { kind: 'interpolated', found: 'postgres:${PG_TAG:-16.4}' });
  t.same(rewriteServiceImage(file, 'shared-a', 'redis:7.2.1', 'redis:7.2.2'), { kind: 'inherited', how: 'alias' });
  t.same(rewriteServiceImage(file, 'shared-b', 'redis:7.2.1', 'redis:7.2.2'), { kind: 'inherited', how: 'alias' });
  t.same(rewriteServiceImage(file, 'merged', 'busybox:1.36.0', 'busybox:1.36.1'), { kind: 'inherited', how: 'merge' });
  t.same(rewriteServiceImage(file, 'child', 'nginx:1.25.3-alpine', 'nginx:1.25.4-alpine'), { kind: 'inherited', how: 'extends' });
  t.same(rewriteServiceImage(file, 'nope', 'a:1', 'a:2'), { kind: 'absent' });
  t.same(rewriteServiceImage('version: "2"\n', 'web', 'a:1', 'a:2'), { kind: 'absent' });
  t.equal(rewriteServiceImage('services: [\n', 'web', 'a:1', 'a:2').kind, 'unsupported');
  t.equal(rewriteServiceImage('services:\n  web:\n    image: |\n      a:1\n', 'web', 'a:1\n', 'a:2').kind, 'unsupported');
  t.end();
});

t.test('interpolation is what Compose interpolates', (t) => {
  t.ok(isInterpolated('${TAG}'));
  t.ok(isInterpolated('nginx:$TAG'));
  t.notOk(isInterpolated('nginx:1.25'));
  t.notOk(isInterpolated('price$$5'));
  t.end();
});

t.test('the next reference keeps the spelling and moves a pinned digest', (t) => {
  const dgst = `sha256:${'b'.repeat(64)}`;
  t.equal(nextImageReference('nginx:1.25.3-alpine', '1.25.4-alpine'), 'nginx:1.25.4-alpine');
  t.equal(nextImageReference('127.0.0.1:5901/demo/app:1.0.0', '1.1.0'), '127.0.0.1:5901/demo/app:1.1.0');
  t.equal(nextImageReference('127.0.0.1:5901/demo/app', '1.1.0'), '127.0.0.1:5901/demo/app:1.1.0');
  t.equal(nextImageReference(`nginx:1.25@sha256:${'a'.repeat(64)}`, '1.26', dgst), `nginx:1.26@${dgst}`);
  t.equal(nextImageReference(`nginx@sha256:${'a'.repeat(64)}`, '1.26', dgst), undefined);
  t.end();
});
