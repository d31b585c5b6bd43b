// What a replacement pulls and runs when the check resolved a digest (docs/plugins.md#the-staleness-protocol).
import t from 'tap';
import { pullTargetOf, recordsDigest } from '../../../plugins/docker/image/pinned-pull.js';

const OLD = `sha256:${'a'.repeat(64)}`;
const NEW = `sha256:${'b'.repeat(64)}`;

t.test('a stale registry answer with a digest is pulled by digest and run by tag', async (t) => {
  const stale = { source: 'registry', stale: true, latestDigest: NEW };
  t.same(pullTargetOf('127.0.0.1:5000/demo/app:1.25', stale), {
    pull: `127.0.0.1:5000/demo/app@${NEW}`,
    run: '127.0.0.1:5000/demo/app:1.25',
    pinned: { digest: NEW, repository: '127.0.0.1:5000/demo/app', tag: '1.25' },
  });
  t.same(pullTargetOf('nginx:1.25.3-alpine', { ...stale, latestTag: '1.25.4-alpine' }), {
    pull: `nginx@${NEW}`,
    run: 'nginx:1.25.4-alpine',
    pinned: { digest: NEW, repository: 'nginx', tag: '1.25.4-alpine' },
  }, 'a new tag, in the user\'s spelling of the repository');
  t.equal(pullTargetOf(`127.0.0.1:5000/app:1.25@${OLD}`, { ...stale, latestTag: '1.26' }).run, `127.0.0.1:5000/app:1.26@${NEW}`, 'a pinned reference stays pinned, on the new digest');
  t.same(pullTargetOf(`127.0.0.1:5000/app@${OLD}`, { ...stale, latestTag: '1.26' }).run, `127.0.0.1:5000/app@${NEW}`, 'a digest-only reference never gains a tag');
});

t.test('anything else pulls and runs the image name as before', async (t) => {
  const name = '127.0.0.1:5000/demo/app:latest';
  const plain = { pull: name, run: name };
  t.same(pullTargetOf(name, { source: 'registry', stale: true }), plain, 'no digest resolved');
  t.same(pullTargetOf(name, { source: 'git', stale: true, latestDigest: NEW }), plain, 'another path');
  t.same(pullTargetOf(name, { source: 'registry', stale: false, latestDigest: NEW }), plain, 'not stale (a restart)');
  t.same(pullTargetOf('Not/A:Ref!', { source: 'registry', stale: true, latestDigest: NEW }), { pull: 'Not/A:Ref!', run: 'Not/A:Ref!' }, 'no reference');
});

t.test('the engine must have recorded the digest in the same repository', async (t) => {
  t.ok(recordsDigest([`nginx@${NEW}`], 'docker.io/library/nginx', NEW), 'familiar and normalised names agree');
  t.ok(recordsDigest([`127.0.0.1:5000/other@${OLD}`, `127.0.0.1:5000/app@${NEW}`], '127.0.0.1:5000/app', NEW));
  t.notOk(recordsDigest([`127.0.0.1:5000/app@${OLD}`], '127.0.0.1:5000/app', NEW), 'another digest');
  t.notOk(recordsDigest([`127.0.0.1:5000/other@${NEW}`], '127.0.0.1:5000/app', NEW), 'the digest, but of another repository');
  t.notOk(recordsDigest(undefined, '127.0.0.1:5000/app', NEW), 'nothing recorded');
});
