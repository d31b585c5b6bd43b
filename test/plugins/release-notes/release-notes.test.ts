// Release notes (docs/versions.md#release-notes) through a real core with the Git plugin's GitHub client,
// against a loopback fake of GitHub's REST API that records every request: the documented request shape
// ("List releases": path, per_page/page, Accept, X-GitHub-Api-Version), the releases between the running and
// the latest version, conditional requests that make a repeated check cost no rate limit (proved from the
// fake's log), one request per repository per check, pagination, bounds, rate-limit refusals given up until
// the reset, and the label templates. GitHub itself cannot run here; the fake follows its documentation.
import t, { type Test } from 'tap';
import { createTidewatch, type Staleness, type Target } from '../../../core/index.js';
import { usePlugin } from '../../../core/plugin.js';
import { gitPlugin } from '../../../plugins/git/index.js';
import { releaseNotesPlugin } from '../../../plugins/release-notes/index.js';
import { FakeGitHub, type FakeGitHubOptions, type FakeRelease } from '../../helpers/fake-github.js';
import { fakeTarget } from '../../helpers/targets.js';
import { FINDINGS, readFinding } from '../../../core/index.js';
import { asStaleness } from '../../helpers/staleness.js';

const SOURCE = 'org.opencontainers.image.source';
const VERSION = 'org.opencontainers.image.version';

function release(tag: string, body = `Changes of ${tag}`): FakeRelease {
  return { tag_name: tag, name: `Release ${tag}`, body, published_at: '2026-03-01T10:00:00Z' };
}

/** A running image at `current` with its source on GitHub; the stub source says `latest` is out. */
function app(name: string, current: string, extra: Partial<Target> = {}): Target {
  return fakeTarget(name, { imageLabels: { [SOURCE]: 'https://github.com/acme/app', [VERSION]: current }, ...extra });
}

async function setup(
  t: Test,
  targets: Target[],
  latest: Record<string, string | undefined>,
  options: { enabled?: boolean; github?: FakeGitHubOptions } = {},
) {
  const gh = await FakeGitHub.start(options.github ?? {});
  t.teardown(() => gh.close());
  gh.setRepo('acme', 'app', { branches: { main: '1'.repeat(40) } });
  const tw = await createTidewatch({
    plugins: [
      {
        name: 'stub',
        apply(core) {
          core.hooks.discover.tapPromise('stub', async (found) => [...found, ...targets]);
          // A stale registry answer that already names its version (the registry plugin's review tap does).
          core.hooks.checkStaleness.tapPromise('stub', async (target): Promise<Staleness> => {
            const version = latest[target.name];
            return asStaleness({ source: 'registry', stale: true, latestDigest: `sha256:${'b'.repeat(64)}`, ...(version ? { latestVersion: version } : {}) });
          });
        },
      },
      usePlugin(gitPlugin, { githubApiUrl: gh.url }),
      usePlugin(releaseNotesPlugin, { enabled: options.enabled ?? true }),
    ],
  });
  t.teardown(() => tw.close());
  const check = async () => new Map((await tw.check()).results.map((r) => [r.target.name, r.staleness]));
  return { gh, check };
}

t.test('the releases after the running version up to the latest; a second check makes only conditional requests', async (t) => {
  const { gh, check } = await setup(t, [app('web', '1.0.0'), app('worker', '1.0.0')], { web: 'v1.3.0', worker: '1.3.0' });
  gh.setReleases('acme', 'app', ['v1.4.0', 'v1.3.0', 'v1.2.0', 'v1.1.0', 'v1.0.0', 'v0.9.0'].map((v) => release(v)));

  const first = await check();
  const notes = readFinding(first.get('web'), FINDINGS.releaseNotes);
  t.same(notes?.entries.map((e) => e.version), ['v1.3.0', 'v1.2.0', 'v1.1.0'], 'after 1.0.0 up to 1.3.0, newest first: not 1.4.0, not 1.0.0');
  t.same(notes?.entries[0], {
    version: 'v1.3.0',
    title: 'Release v1.3.0',
    url: 'https://github.com/acme/app/releases/tag/v1.3.0',
    publishedAt: '2026-03-01T10:00:00.000Z',
    body: 'Changes of v1.3.0',
  });
  t.equal(notes?.url, 'https://github.com/acme/app/releases/tag/v1.3.0', 'the location: the new release\'s page');
  t.same(readFinding(first.get('worker'), FINDINGS.releaseNotes), notes, 'a version with or without the v prefix names the same release');
  // The documented request shape, once for both containers of the repository.
  t.equal(gh.requests.length, 1, 'one request per repository per check');
  t.match(gh.requests[0], {
    method: 'GET',
    path: '/repos/acme/app/releases',
    query: 'per_page=30&page=1',
    accept: 'application/vnd.github+json',
    apiVersion: '2022-11-28',
    status: 200,
  });
  t.equal(gh.requests[0]?.ifNoneMatch, undefined);
  const spent = gh.remaining;

  gh.resetRequests();
  const second = await check();
  t.same(readFinding(second.get('web'), FINDINGS.releaseNotes), notes, 'the same notes, from the cache');
  t.equal(gh.requests.length, 1);
  t.ok(gh.requests.every((r) => r.ifNoneMatch !== undefined && r.status === 304), 'only conditional requests, each answered 304');
  t.equal(gh.remaining, spent, 'a repeated check cost no rate limit');

  // A new release changes the ETag: the next check reads it.
  gh.setReleases('acme', 'app', ['v1.5.0', 'v1.4.0', 'v1.3.0', 'v1.2.0', 'v1.1.0', 'v1.0.0'].map((v) => release(v)));
  gh.resetRequests();
  await check();
  t.match(gh.requests, [{ status: 200 }]);
  t.ok(gh.requests[0]?.ifNoneMatch, 'still conditional');
});

t.test('a repository GitHub answers 404 for is not asked again at the next check (a 404 has no ETag to be conditional on)', async (t) => {
  const gone = app('gone', '1.0.0', { imageLabels: { [SOURCE]: 'https://github.com/acme/gone', [VERSION]: '1.0.0' } });
  const { gh, check } = await setup(t, [gone, app('web', '1.0.0')], { gone: '1.1.0', web: '1.1.0' });
  gh.setReleases('acme', 'app', [release('1.1.0'), release('1.0.0')]);
  const first = await check();
  const seen = (): string[] => gh.requests.map((r) => `${r.path} ${r.status}${r.ifNoneMatch ? ' conditional' : ''}`).sort();
  t.same(seen(), ['/repos/acme/app/releases 200', '/repos/acme/gone/releases 404'], 'the first check asks both');
  t.same(readFinding(first.get('gone'), FINDINGS.releaseNotes), { url: 'https://github.com/acme/gone/releases', entries: [] }, 'the location is kept');
  gh.resetRequests();
  const spent = gh.remaining;
  const second = await check();
  t.same(readFinding(second.get('gone'), FINDINGS.releaseNotes), readFinding(first.get('gone'), FINDINGS.releaseNotes), 'the same answer');
  t.same(seen(), ['/repos/acme/app/releases 304 conditional'], 'only the existing repository is asked, conditionally');
  t.equal(gh.remaining, spent, 'the second check cost no rate limit');
});

t.test('pages until the running version, at most 10 entries of at most 4 KiB', async (t) => {
  const { gh, check } = await setup(t, [app('web', '1.0.0')], { web: '1.40.0' });
  const huge = `# Big\n${'é'.repeat(5000)}`;
  gh.setReleases('acme', 'app', Array.from({ length: 41 }, (_, i) => release(`1.${40 - i}.0`, huge)));
  const notes = readFinding((await check()).get('web'), FINDINGS.releaseNotes);
  t.same(gh.requests.map((r) => r.query), ['per_page=30&page=1', 'per_page=30&page=2'], 'page 2 only because 1.0.0 was not on page 1');
  t.equal(notes?.entries.length, 10);
  t.equal(notes?.entries[0]?.version, '1.40.0');
  t.equal(notes?.entries[9]?.version, '1.31.0');
  for (const e of notes?.entries ?? []) t.ok(Buffer.byteLength(e.body) <= 4096, 'body at most 4 KiB');
  t.ok(notes?.entries[0]?.body.endsWith('…'), 'a cut body says so');
  t.notOk(notes?.entries[0]?.body.includes('\uFFFD'), 'cut on a character boundary');
});

t.test('rate limited (403 with reset, 429 with retry-after): given up until the reset, the location kept', async (t) => {
  for (const exhaustedStatus of [403, 429] as const) {
    const { gh, check } = await setup(t, [app('web', '1.0.0')], { web: '1.1.0' }, { github: { exhaustedStatus, ...(exhaustedStatus === 429 ? { retryAfter: 600 } : {}) } });
    gh.setReleases('acme', 'app', [release('1.1.0'), release('1.0.0')]);
    gh.setRemaining(0, 3600);
    const notes = readFinding((await check()).get('web'), FINDINGS.releaseNotes);
    t.match(gh.requests, [{ status: exhaustedStatus }], `${exhaustedStatus}: refused`);
    t.same(notes, { url: 'https://github.com/acme/app/releases', entries: [] }, `${exhaustedStatus}: the check goes on, with the location`);
    await check();
    t.equal(gh.requests.length, 1, `${exhaustedStatus}: no request before the reset`);
  }
});

t.test('the release-notes label and What\'s Up Docker\'s link template; off by default', async (t) => {
  const own = fakeTarget('own', { labels: { 'tidewatch.release-notes': 'https://example.org/app/{version}?tag={tag}' } });
  const wud = fakeTarget('wud', { labels: { 'wud.link.template': 'https://github.com/acme/app/releases/tag/v${major}.${minor}.${patch}' }, imageLabels: { [VERSION]: '1.0.0' } });
  const hostile = fakeTarget('hostile', { labels: { 'tidewatch.release-notes': 'javascript:alert({version})' } });
  const unknown = fakeTarget('unknown', { labels: { 'tidewatch.release-notes': 'https://example.org/{version}' } });
  const { gh, check } = await setup(t, [own, wud, hostile, unknown], { own: '2.0.0', wud: '1.1.0', hostile: '1.0.0' });
  gh.setReleases('acme', 'app', [release('v1.1.0'), release('v1.0.0')]);
  const found = await check();
  t.same(readFinding(found.get('own'), FINDINGS.releaseNotes), { url: 'https://example.org/app/2.0.0?tag=latest', entries: [] }, '{version} and {tag} filled; not GitHub: no request');
  t.equal(readFinding(found.get('wud'), FINDINGS.releaseNotes)?.url, 'https://github.com/acme/app/releases/tag/v1.1.0', 'the template in its own syntax');
  t.same(readFinding(found.get('wud'), FINDINGS.releaseNotes)?.entries.map((e) => e.version), ['v1.1.0'], 'a GitHub URL: its repository\'s releases');
  t.equal(readFinding(found.get('hostile'), FINDINGS.releaseNotes), undefined, 'only http(s) locations');
  t.equal(readFinding(found.get('unknown'), FINDINGS.releaseNotes), undefined, 'no latest version: no link to a wrong page');
  t.equal(gh.requests.length, 1);

  const off = await setup(t, [app('web', '1.0.0')], { web: '1.1.0' }, { enabled: false });
  t.equal(readFinding((await off.check()).get('web'), FINDINGS.releaseNotes), undefined);
  t.equal(off.gh.requests.length, 0, 'without --release-notes no request leaves for GitHub');
});
