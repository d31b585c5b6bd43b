// Tag policies against the real Distribution registry (docs/tags.md), behind a loopback proxy that pages the
// tag list as Distribution 3 does: which tag each policy picks, what a container on the default policy
// costs (nothing more), one tag-list walk per repository, one manifest request per candidate tried, and a
// newer tag without this machine's platform reported in `note`, never applied.
import t from 'tap';
import type { Target } from '../../../core/index.js';
import { requireEnv } from '../../helpers/env.js';
import { testPrefix } from '../../helpers/images.js';
import { PagingRegistry } from '../../helpers/paging-registry.js';
import { foreignPlatform, pushIndex, pushTags } from '../../helpers/tag-fixtures.js';
import { defaultPlatform } from '../../../plugins/registry/image-created.js';
import { harness, target } from './harness.js';
import { RegistryProxy } from './registry-proxy.js';
import { legacyView } from '../../helpers/staleness.js';

const prefix = testPrefix('tag-policy');
const native = defaultPlatform();
const nativeName = [native.os, native.architecture, native.variant].filter(Boolean).join('/');

// 1100 patch releases (more than one page of 1000), a minor, a major, pre-releases, variants, build
// counters, calver and artifact tags.
const MANY = Array.from({ length: 1100 }, (_, i) => `1.0.${i}`);
const OTHERS = [
  '1.1.0', '2.0.0', '1.2.0-rc.1', '1.0.3-alpine', '1.0.9-alpine', '1.0.10-alpine-perl', '4.1.0-ls258', '4.1.0-ls259',
  '4.1.0-ls1000', 'latest', 'dev', `sha256-${'c'.repeat(64)}.sig`, '1.0.5000.sig', '1.0.5001.att',
];

function labelled(name: string, ref: string, digest: string, labels: Record<string, string>): Target {
  return { ...target(name, ref, [`${ref.split(':').slice(0, -1).join(':')}@${digest}`]), labels };
}

t.test('each policy picks the right tag, at one tag-list walk per repository', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const repo = `${prefix}/big`;
  const { digests } = await pushTags(env.registry, repo, [...MANY, ...OTHERS]);
  const proxy = await new PagingRegistry(env.registry).start();
  t.teardown(() => proxy.close());
  const name = `${proxy.host}/${repo}`;
  const on = (tag: string, labels: Record<string, string>, as = tag) => labelled(`${as}-${Object.values(labels).join('-')}`, `${name}:${tag}`, digests.get(tag)!, labels);
  const targets = [
    on('1.0.0', { 'tidewatch.tag.policy': 'patch' }),
    on('1.0.0', { 'tidewatch.tag.policy': 'minor' }),
    on('1.0.0', { 'com.centurylinklabs.watchtower.tag.policy': 'major' }, 'wt'),
    on('1.0.0', { 'tidewatch.tag.policy': 'minor', 'tidewatch.tag.prerelease': 'true' }, 'pre'),
    on('1.0.3-alpine', { 'tidewatch.tag.policy': 'minor' }),
    on('4.1.0-ls258', { 'tidewatch.tag.policy': 'patch' }),
    on('1.0.0', { 'tidewatch.tag.policy': 'patch', 'wud.tag.include': '^1\\.0\\.1\\d$' }, 'wud'),
    on('1.0.0', { 'tidewatch.tag.policy': 'patch', 'tidewatch.tag.exclude': '^1\\.0\\.10\\d\\d$' }, 'excl'),
    on('latest', { 'tidewatch.tag.policy': 'major' }),
  ];
  const h = await harness(targets, { tlsSkip: true });
  t.teardown(() => h.tw.close());
  const report = await h.check();
  const pick = (n: string) => legacyView(h.byName(report, n).staleness);

  t.match(pick('1.0.0-patch'), { stale: true, tagPolicy: 'patch', currentTag: '1.0.0', latestTag: '1.0.1099', updateKind: 'patch', latestDigest: digests.get('1.0.1099') });
  t.match(pick('1.0.0-minor'), { stale: true, latestTag: '1.1.0', updateKind: 'minor', latestDigest: digests.get('1.1.0') });
  t.match(pick('wt-major'), { stale: true, tagPolicy: 'major', latestTag: '2.0.0', updateKind: 'major' }, "Watchtower's label prefix is an alias");
  t.match(pick('pre-minor-true'), { stale: true, latestTag: '1.2.0-rc.1', updateKind: 'minor' });
  t.match(pick('1.0.3-alpine-minor'), { stale: true, latestTag: '1.0.9-alpine', updateKind: 'patch' }, 'the variant stays, never -alpine-perl');
  t.match(pick('4.1.0-ls258-patch'), { stale: true, latestTag: '4.1.0-ls1000' }, 'build counters as numbers');
  t.match(pick('wud-patch-^1\\.0\\.1\\d$'), { stale: true, latestTag: '1.0.19' }, "What's Up Docker's include label");
  t.match(pick('excl-patch-^1\\.0\\.10\\d\\d$'), { stale: true, latestTag: '1.0.999' });
  t.match(pick('latest-major'), { stale: false, tagPolicy: 'major', currentTag: 'latest' }, 'an alias follows its digest (Keel #480: never to dev)');
  t.notOk(pick('latest-major').latestTag);

  t.equal(proxy.count(/\/tags\/list$/), 2, 'one walk of two pages (1114 tags at 1000 a page), shared by every target');
  t.ok(proxy.paths.some((p) => /tags\/list\?last=.*&n=1000/.test(p)), 'the second page was the one Link named');
  // One GET per distinct chosen tag (single manifests: plus their config blob), one HEAD for the alias.
  const manifests = proxy.paths.filter((p) => p.includes('/manifests/'));
  t.equal(manifests.filter((p) => p.startsWith('GET')).length, 8, 'one manifest request per candidate tried, none per listed tag (Diun)');
  t.same(manifests.filter((p) => p.startsWith('HEAD')), [`HEAD /v2/${repo}/manifests/latest`]);
});

t.test('the default policy costs what it cost before; pin costs nothing; a bad label is the target\'s error', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const repo = `${prefix}/plain`;
  const { digests } = await pushTags(env.registry, repo, ['1.0.0', '1.0.1', '1.1.0']);
  const proxy = await new PagingRegistry(env.registry).start();
  t.teardown(() => proxy.close());
  const name = `${proxy.host}/${repo}`;
  const targets = [
    labelled('default', `${name}:1.0.0`, digests.get('1.0.0')!, {}),
    labelled('pinned', `${name}:1.0.0`, digests.get('1.0.0')!, { 'tidewatch.tag.policy': 'pin' }),
    labelled('bad', `${name}:1.0.0`, digests.get('1.0.0')!, { 'tidewatch.tag.policy': 'weekly' }),
    labelled('bad-pattern', `${name}:1.0.0`, digests.get('1.0.0')!, { 'tidewatch.tag.policy': 'minor', 'tidewatch.tag.include': '(' }),
    labelled('bad-transform', `${name}:1.0.0`, digests.get('1.0.0')!, { 'tidewatch.tag.policy': 'minor', 'wud.tag.transform': '^(\\d+)$ => $2' }),
    { ...target('local-build', `${name}:1.0.0`), labels: { 'tidewatch.tag.policy': 'minor' } },
  ];
  const h = await harness(targets, { tlsSkip: true });
  t.teardown(() => h.tw.close());
  const report = await h.check();
  t.same(legacyView(h.byName(report, 'default').staleness), { source: 'registry', stale: false, currentDigest: digests.get('1.0.0'), latestDigest: digests.get('1.0.0') }, 'exactly the answer of before');
  t.same(legacyView(h.byName(report, 'pinned').staleness), { source: 'registry', stale: false, tagPolicy: 'pin', currentTag: '1.0.0', currentDigest: digests.get('1.0.0') });
  t.match(legacyView(h.byName(report, 'bad').staleness), { stale: false, error: /label tidewatch\.tag\.policy: "weekly" is not one of digest, patch, minor, major, pin/ });
  t.match(legacyView(h.byName(report, 'bad-pattern').staleness), { stale: false, error: /label tidewatch\.tag\.include: invalid RE2 pattern/ });
  t.match(legacyView(h.byName(report, 'bad-transform').staleness), { stale: false, error: /label wud\.tag\.transform: \$2 names a group/ });
  // A local build never moves to a registry tag, and is never called up to date either (docs/engines.md).
  const local = legacyView(h.byName(report, 'local-build').staleness);
  t.match(local, { source: 'registry', stale: false, tagPolicy: 'minor', currentTag: '1.0.0', error: /records no registry digest for the running image/ }, 'a local build never moves to a registry tag');
  t.notOk(local.latestTag, 'no tag chosen');
  t.same(proxy.paths.filter((p) => p !== 'GET /v2/'), [`HEAD /v2/${repo}/manifests/1.0.0`], 'one HEAD for the default target; nothing for pin, the bad labels or the local build, no tag list');
});

t.test('--tag-policy is the default of containers without a label; floating tags follow their digest under it', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const repo = `${prefix}/global`;
  const { digests } = await pushTags(env.registry, repo, ['1.25', '1.26', '1.25.3', '1.25.4', '1.26.0', '2024.9.30', '2024.10.1', '2025.1.0']);
  const proxy = await new PagingRegistry(env.registry).start();
  t.teardown(() => proxy.close());
  const name = `${proxy.host}/${repo}`;
  const h = await harness(
    [
      labelled('versioned', `${name}:1.25.3`, digests.get('1.25.3')!, {}),
      labelled('floating', `${name}:1.25`, digests.get('1.25')!, {}),
      labelled('floating-explicit', `${name}:1.25`, digests.get('1.25')!, { 'tidewatch.tag.policy': 'minor' }),
      labelled('calver', `${name}:2024.9.30`, digests.get('2024.9.30')!, {}),
    ],
    { tlsSkip: true, tagPolicy: 'minor' },
  );
  t.teardown(() => h.tw.close());
  const report = await h.check();
  t.match(legacyView(h.byName(report, 'versioned').staleness), { stale: true, tagPolicy: 'minor', latestTag: '1.26.0' });
  t.match(legacyView(h.byName(report, 'floating').staleness), { stale: false, tagPolicy: 'minor', currentTag: '1.25' });
  t.notOk(h.byName(report, 'floating').staleness.latestTag, 'a floating tag under the global default follows its digest');
  t.match(legacyView(h.byName(report, 'calver').staleness), { stale: true, latestTag: '2024.10.1', updateKind: 'minor' }, 'calver, numerically');
  t.match(legacyView(h.byName(report, 'floating-explicit').staleness), { stale: true, latestTag: '1.26', updateKind: 'minor' }, 'an explicit policy keeps its segment count');
});

t.test('a newer tag without this platform is noted, never applied (What\'s Up Docker #488)', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const repo = `${prefix}/platforms`;
  const foreign = foreignPlatform();
  const { digests } = await pushTags(env.registry, repo, ['17.0.0']);
  const both = await pushIndex(env.registry, repo, '17.0.1', [native, foreign]);
  await pushIndex(env.registry, repo, '17.1.0', [foreign]);
  await pushTags(env.registry, repo, ['17.1.1'], foreign);
  const proxy = await new PagingRegistry(env.registry).start();
  t.teardown(() => proxy.close());
  const name = `${proxy.host}/${repo}`;
  const h = await harness([labelled('pg', `${name}:17.0.0`, digests.get('17.0.0')!, { 'tidewatch.tag.policy': 'minor' })], { tlsSkip: true });
  t.teardown(() => h.tw.close());
  const s = legacyView(h.byName(await h.check(), 'pg').staleness);
  t.match(s, { stale: true, latestTag: '17.0.1', latestDigest: both, updateKind: 'patch' }, 'the highest candidate that has this platform');
  t.equal(s.note, `17.1.1 exists, but not for ${nativeName} (nor 1 other newer tag)`);
  const gets = proxy.paths.filter((p) => p.startsWith('GET') && p.includes('/manifests/'));
  t.same(gets, [`GET /v2/${repo}/manifests/17.1.1`, `GET /v2/${repo}/manifests/17.1.0`, `GET /v2/${repo}/manifests/17.0.1`], 'from the highest down, stopping at the first that fits');

  // None fits: the target stays on its tag's digest, and says why.
  const only = `${prefix}/platforms-none`;
  const own = await pushTags(env.registry, only, ['1.0.0']);
  await pushIndex(env.registry, only, '1.0.1', [foreign]);
  const h2 = await harness([labelled('none', `${proxy.host}/${only}:1.0.0`, own.digests.get('1.0.0')!, { 'tidewatch.tag.policy': 'patch' })], { tlsSkip: true });
  t.teardown(() => h2.tw.close());
  const none = legacyView(h2.byName(await h2.check(), 'none').staleness);
  t.match(none, { stale: false, note: `1.0.1 exists, but not for ${nativeName}`, currentDigest: own.digests.get('1.0.0') });
  t.notOk(none.latestTag);
});

t.test('the tag list is paged by Link, and a walk cut at its bound names the repository', async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const repo = `${prefix}/paged`;
  const tags = Array.from({ length: 120 }, (_, i) => `3.0.${i}`);
  const { digests } = await pushTags(env.registry, repo, tags);
  const small = await new PagingRegistry(env.registry, 7).start();
  t.teardown(() => small.close());
  const h = await harness([labelled('paged', `${small.host}/${repo}:3.0.0`, digests.get('3.0.0')!, { 'tidewatch.tag.policy': 'patch' })], { tlsSkip: true });
  t.teardown(() => h.tw.close());
  t.match(legacyView(h.byName(await h.check(), 'paged').staleness), { stale: true, latestTag: '3.0.119' }, 'every page read (the highest tag sorts in the middle)');
  t.equal(small.count(/\/tags\/list$/), 18, '120 tags at 7 a page');

  const tiny = await new PagingRegistry(env.registry, 1).start();
  t.teardown(() => tiny.close());
  const cut = await harness([labelled('cut', `${tiny.host}/${repo}:3.0.0`, digests.get('3.0.0')!, { 'tidewatch.tag.policy': 'patch' })], { tlsSkip: true });
  t.teardown(() => cut.tw.close());
  t.match(legacyView(cut.byName(await cut.check(), 'cut').staleness), { stale: false, error: new RegExp(`the tag list of ${tiny.host}/${repo} has more than 50 pages`) });
  t.equal(tiny.count(/\/tags\/list$/), 50, 'no page past the bound');
});

t.test("a tag list answered 429 is waited for and retried, as every registry request (What's Up Docker #1136, GHCR)", async (t) => {
  const env = await requireEnv(t);
  if (!env) return;
  const repo = `${prefix}/limited`;
  const { digests } = await pushTags(env.registry, repo, ['1.0.0', '1.0.1']);
  let limited = 0;
  const proxy = await new RegistryProxy({
    upstream: env.registry,
    inject: (req) => {
      if (!req.path.includes('/tags/list') || limited >= 2) return undefined;
      limited++;
      return { status: 429, headers: { 'retry-after': '1', 'content-type': 'application/json' }, body: '{"errors":[{"code":"TOOMANYREQUESTS"}]}' };
    },
  }).start();
  t.teardown(() => proxy.close());
  const h = await harness([labelled('limited', `${proxy.host}/${repo}:1.0.0`, digests.get('1.0.0')!, { 'tidewatch.tag.policy': 'patch' })], { tlsSkip: true });
  t.teardown(() => h.tw.close());
  const started = Date.now();
  t.match(legacyView(h.byName(await h.check(), 'limited').staleness), { stale: true, latestTag: '1.0.1' });
  t.equal(proxy.count((r) => r.path.includes('/tags/list')), 3, 'two 429s, then the list');
  t.ok(Date.now() - started >= 1500, 'Retry-After was honoured');
});
