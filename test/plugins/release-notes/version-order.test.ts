// Which releases, in what order (docs/versions.md#release-notes): by version with the tag policy's rules, not
// by GitHub's list order; a backport published later is not "newer"; an image's variant or build counter is
// left out when matching its release; all releases read are listed when the running version is older than them
// (at most 10); versions that name no version fall back to the list order.
import t from 'tap';
import { between, compareRelease } from '../../../plugins/release-notes/reader.js';
import { parseTag } from '../../../contracts/shared/tag-version.js';

const rel = (tag: string) => ({ tag, version: tag, title: `Release ${tag}`, url: `https://github.com/acme/app/releases/tag/${tag}`, body: '' });
const tags = (list: { tag: string }[]) => list.map((r) => r.tag);

t.test('by version, newest first, between the running and the new version', async (t) => {
  const listed = ['v1.9.5', 'v2.1.0', 'v2.1.0-rc1', 'v2.0.1', 'v1.9.4', 'v2.0.0', 'nightly'].map(rel);
  t.same(tags(between(listed, { current: '2.0.0', latest: '2.1.0' })), ['v2.1.0', 'v2.1.0-rc1', 'v2.0.1'], 'the backports are not newer than 2.0.0');
  t.same(tags(between(listed, { latest: '2.1.0' })), ['v2.1.0'], 'without a running version: the new one only');
  t.same(between(listed, { current: '2.0.0', latest: '2.2.0' }), [], 'no release of the new version: none');
  t.same(tags(between(listed, { current: '2.0.0-alpine3.19', latest: '2.1.0-alpine3.19' })), ['v2.1.0', 'v2.1.0-rc1', 'v2.0.1'], 'a variant and its counters are not a version step');
});

t.test('the running version older than everything read: every release read up to the new one, at most 10', async (t) => {
  const listed = Array.from({ length: 30 }, (_, i) => rel(`v3.${29 - i}.0`));
  const notes = between(listed, { current: '1.0.0', latest: '3.25.0' });
  t.same(tags(notes), Array.from({ length: 10 }, (_, i) => `v3.${25 - i}.0`));
});

t.test('versions that are no versions: GitHub\'s order', async (t) => {
  const listed = ['stable-b', 'stable-a', 'old'].map(rel);
  t.same(tags(between(listed, { current: 'old', latest: 'stable-b' })), ['stable-b', 'stable-a']);
});

t.test('compareRelease: numbers as numbers, a release above its pre-releases', async (t) => {
  const v = (s: string) => parseTag(s) as NonNullable<ReturnType<typeof parseTag>>;
  t.ok(compareRelease(v('v2.10.0'), v('v2.9.0')) > 0);
  t.ok(compareRelease(v('v2.1.0'), v('v2.1.0-rc2')) > 0);
  t.equal(compareRelease(v('v2.1.0'), v('2.1.0')), 0, 'the v prefix does not count');
});
