// What "newer" means for tags (docs/tags.md), case by case, with each mistake a peer's users reported.
import t from 'tap';
import { compareVersions, isArtifactTag, newerTags, parseTag, type TagRules } from '../../../plugins/registry/tags/versions.js';

const minor: TagRules = { policy: 'minor', explicit: false, prerelease: false };
const patch: TagRules = { ...minor, policy: 'patch' };
const major: TagRules = { ...minor, policy: 'major' };
const tagsOf = (current: string, tags: string[], rules: TagRules) => newerTags(current, tags, rules).map((c) => c.tag);

t.test('the shape of a tag: prefix, optional v, 1-4 numbers, suffix', async (t) => {
  t.match(parseTag('1.25.3-alpine'), { prefix: '', v: false, numbers: ['1', '25', '3'], template: '-alpine', counters: [] });
  t.match(parseTag('v2.0.1'), { prefix: '', v: true, numbers: ['2', '0', '1'], template: '' });
  t.match(parseTag('release-v1.2'), { prefix: 'release-', v: true, numbers: ['1', '2'] });
  t.match(parseTag('1.2.3.4'), { numbers: ['1', '2', '3', '4'] });
  t.match(parseTag('4.1.0-ls258'), { template: '-ls#', counters: ['258'] });
  t.match(parseTag('3.18.4-r1'), { template: '-r#', counters: ['1'] });
  t.match(parseTag('1.26.0-rc.1'), { template: '', pre: { rank: 4, numbers: ['1'] } });
  t.match(parseTag('1.26.0-rc1-alpine'), { template: '-alpine', pre: { rank: 4, numbers: ['1'] } });
  t.match(parseTag('2024.10.1'), { numbers: ['2024', '10', '1'] });
  for (const word of ['latest', 'stable', 'lts', 'edge', 'dev', 'main', 'alpine', 'a1b2c3d', 'deadbeef1', '1a2b3c4', 'dev1', 'sha-4f2a9c1', '1.2.3.4.5', '1.0.0rc1']) {
    t.equal(parseTag(word), undefined, `${word} is no version`);
  }
});

t.test('artifact tags are never candidates', async (t) => {
  for (const tag of [`sha256-${'a'.repeat(64)}`, `sha256-${'a'.repeat(64)}.sig`, '1.2.4.sig', '1.2.4.att', '1.2.4.sbom']) t.ok(isArtifactTag(tag), tag);
  t.notOk(isArtifactTag('1.2.4'));
  t.same(tagsOf('1.2.3', ['1.2.4.sig', `sha256-${'b'.repeat(64)}.att`, '1.2.4.sbom'], minor), []);
});

t.test('versions compare as numbers, never as strings', async (t) => {
  const cmp = (a: string, b: string) => Math.sign(compareVersions(parseTag(a)!, parseTag(b)!));
  t.equal(cmp('1.10.0', '1.9.0'), 1, '10 > 9');
  t.equal(cmp('1.2.10', '1.2.9'), 1);
  t.equal(cmp('4.1.0-ls259', '4.1.0-ls258'), 1, 'build counter');
  t.equal(cmp('4.1.0-ls1000', '4.1.0-ls999'), 1, 'build counter past a digit');
  t.equal(cmp('3.18.4-r10', '3.18.4-r9'), 1, '-r counter');
  t.equal(cmp('2024.10.1', '2024.9.30'), 1, 'calver');
  t.equal(cmp('1.26.0', '1.26.0-rc.2'), 1, 'a release above its pre-releases');
  t.equal(cmp('1.26.0-rc.10', '1.26.0-rc.9'), 1);
  t.equal(cmp('1.26.0-rc.1', '1.26.0-beta.5'), 1, 'rc above beta');
  t.equal(cmp('1.0.99999999999999999999', '1.0.99999999999999999998'), 1, 'beyond a double');
  t.equal(cmp('1.02.0', '1.2.0'), 0, 'leading zeros');
});

t.test('a candidate has the same prefix, v, segment count and suffix template', async (t) => {
  const tags = ['1.25.4', '1.25.4-perl', '1.28.0-alpine-perl', '1.25.4-alpine', 'v1.25.5-alpine', '1.25.4.1-alpine', 'x-1.26.0-alpine'];
  t.same(tagsOf('1.25.3-alpine', tags, minor), ['1.25.4-alpine']);
  t.same(tagsOf('v1.2.3', ['1.2.4', 'v1.2.4', 'v1.3'], minor), ['v1.2.4']);
  t.same(tagsOf('release-1.2.3', ['1.2.9', 'release-1.2.4', 'nightly-1.2.5'], minor), ['release-1.2.4']);
  t.same(tagsOf('1.25.3-alpine3.18', ['1.25.4-alpine3.19', '1.25.4-alpine', '1.25.4-bookworm'], minor), ['1.25.4-alpine3.19']);
});

t.test('build counters', async (t) => {
  t.same(tagsOf('4.1.0-ls258', ['4.1.0-ls257', '4.1.0-ls259', '4.1.0-ls1000', '4.1.0', '4.1.1-ls1'], patch), ['4.1.1-ls1', '4.1.0-ls1000', '4.1.0-ls259']);
  t.same(tagsOf('3.18.4-r0', ['3.18.4-r1', '3.18.4-r2', '3.18.4'], patch), ['3.18.4-r2', '3.18.4-r1']);
});

t.test('the policy is applied before the maximum', async (t) => {
  const tags = ['1.25.3', '1.25.4', '1.26.0', '1.27.2', '2.0.0', '2.1.0'];
  t.same(newerTags('1.25.3', tags, patch), [{ tag: '1.25.4', kind: 'patch' }]);
  t.same(newerTags('1.25.3', tags, minor)[0], { tag: '1.27.2', kind: 'minor' });
  t.same(newerTags('1.25.3', tags, major)[0], { tag: '2.1.0', kind: 'major' });
  t.same(tagsOf('1.27.2', tags, minor), [], 'nothing newer within 1.x');
});

t.test('pre-releases only when allowed, or when running one; a pre-release moves to its own release', async (t) => {
  const tags = ['1.25.4-rc.1', '1.25.4', '1.26.0-beta2', '1.26.0-rc.1'];
  t.same(tagsOf('1.25.3', tags, minor), ['1.25.4']);
  t.same(tagsOf('1.25.3', tags, { ...minor, prerelease: true }), ['1.26.0-rc.1', '1.26.0-beta2', '1.25.4', '1.25.4-rc.1']);
  t.same(tagsOf('1.26.0-beta2', [...tags, '1.26.0'], minor), ['1.26.0', '1.26.0-rc.1'], 'running a pre-release allows them, and its release is newer');
  t.same(tagsOf('1.26.0-rc.1', ['1.26.0', '1.26.0-alpine'], patch), ['1.26.0'], 'its own release, same variant');
});

t.test('floating tags, aliases and words stay on the digest path', async (t) => {
  const tags = ['16', '16.1', '17', '17.0.1', '1.25', '1.26', '1.26.1', 'latest', 'dev', 'edge', 'stable'];
  for (const current of ['16', '1.25', 'latest', 'stable', 'lts', 'edge', 'main', 'a1b2c3d']) {
    t.same(newerTags(current, tags, major), [], `${current} under the default policy`);
  }
  t.same(tagsOf('1.25', tags, { ...minor, explicit: true }), ['1.26'], 'an explicit policy: a floating tag keeps its segment count');
  t.same(tagsOf('16', tags, { ...major, explicit: true }), ['17']);
  t.same(tagsOf('16', tags, { ...minor, explicit: true }), [], 'minor of a one-segment tag is itself');
  t.same(newerTags('latest', tags, { ...major, explicit: true }), [], 'an alias never moves, even explicitly');
});

t.test('calver', async (t) => {
  t.same(tagsOf('2024.9.30', ['2024.10.1', '2024.9.4', '2025.1.0'], minor), ['2024.10.1']);
  t.same(tagsOf('2024.9.30', ['2024.10.1', '2025.1.0'], major), ['2025.1.0', '2024.10.1']);
});

t.test('include, exclude and transform', async (t) => {
  const tags = ['1.2.4', '1.2.5-debug', '1.3.0', '1.2.6'];
  t.same(tagsOf('1.2.3', tags, { ...minor, exclude: (tag) => tag === '1.3.0' }), ['1.2.6', '1.2.4']);
  t.same(tagsOf('1.2.3', tags, { ...minor, include: (tag) => tag.startsWith('1.2.') }), ['1.2.6', '1.2.4']);
  // What's Up Docker's `^build-(\d+\.\d+\.\d+)-.*$ => $1`, read out of odd tags.
  const transform = (tag: string) => /^build-(\d+\.\d+\.\d+)-.*$/.exec(tag)?.[1] ?? tag;
  t.same(tagsOf('build-1.2.3-abc', ['build-1.2.4-def', 'build-1.10.0-aaa', 'build-2.0.0-x'], { ...minor, transform }), ['build-1.10.0-aaa', 'build-1.2.4-def']);
});

// The mistakes peers' users reported, by name (docs/tags.md#why-these-rules).
t.test('peer failures', async (t) => {
  t.test("What's Up Docker: 1.25.3-alpine is offered 1.25.3 / -perl", async (t) => {
    t.same(tagsOf('1.25.3-alpine', ['1.25.3', '1.25.3-perl', '1.25.4-perl', '1.28.0-alpine-perl', '1.25.4-alpine'], minor), ['1.25.4-alpine']);
  });
  t.test("What's Up Docker: patch applied after the maximum finds nothing once 2.0.0 exists", async (t) => {
    t.same(tagsOf('1.25.3', ['2.0.0', '1.25.4', '1.26.0'], patch), ['1.25.4']);
  });
  t.test('Keel #480: latest moved to dev', async (t) => {
    t.same(newerTags('latest', ['dev', 'edge', 'stable', '1.0.0'], { ...major, explicit: true }), []);
  });
  t.test('Diun: no tag is a candidate for a word or hash tag (no manifest request per tag)', async (t) => {
    const thousand = Array.from({ length: 1200 }, (_, i) => `1.0.${i}`);
    t.same(newerTags('main', thousand, major), [], 'a word: nothing to try');
    t.equal(newerTags('1.0.1190', thousand, patch).length, 9, 'a version: only the newer ones are candidates');
  });
  // The platform half of What's Up Docker #488 (postgres 17.1 before its amd64 image) is in
  // tag-policy.test.ts: the candidates come highest first, and the source tries them for the platform.
  t.test("What's Up Docker #488: candidates come highest first, for the platform check to walk down", async (t) => {
    t.same(tagsOf('17.0', ['17.1', '17.0', '16.4'], { ...minor, explicit: true }), ['17.1']);
    t.same(tagsOf('17.0.1', ['17.1.0', '17.0.2'], minor), ['17.1.0', '17.0.2']);
  });
});
