// The GitHub path end to end through the engine: octokit against a loopback server that answers as
// GitHub's REST API documents (ETag/304, x-ratelimit-* headers, 403/429 when the budget is spent).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { FakeGitHub, type FakeGitHubOptions } from '../../helpers/fake-github.js';
import { capturingLogger, gitTarget, harness } from './harness.js';

const R1 = '1111111111111111111111111111111111111111';
const R2 = '2222222222222222222222222222222222222222';
const T1 = '3333333333333333333333333333333333333333';
const REPO = 'https://github.com/acme/widget';

async function fake(t: { teardown(fn: () => unknown): void }, options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const gh = await FakeGitHub.start(options);
  t.teardown(() => gh.close());
  gh.setRepo('acme', 'widget', { defaultBranch: 'main', branches: { main: R1, dev: R2 }, tags: { 'v1.0': T1 } });
  return gh;
}

t.test('unchanged refs answer 304 on later runs and cost no rate limit; a moved branch is stale', async (t) => {
  const gh = await fake(t);
  const h = await harness([gitTarget('w', `${REPO}.git`, { ref: 'main', revision: R1 })], { githubApiUrl: gh.url });
  t.teardown(() => h.tw.close());

  t.match((await h.check()).get('w'), {
    source: 'git',
    stale: false,
    git: { repo: `${REPO}.git`, ref: 'main', commit: R1, currentCommit: R1, changelog: `${REPO}/commit/${R1}` },
    requiredRevision: R1,
  });
  t.equal(gh.requests.length, 1);
  t.match(gh.requests[0], {
    path: '/repos/acme/widget/commits/heads%2Fmain',
    accept: 'application/vnd.github.sha',
    status: 200,
  });
  t.equal(gh.requests[0]?.ifNoneMatch, undefined, 'nothing cached yet');
  const after1 = gh.remaining;

  t.match((await h.check()).get('w'), { stale: false, git: { commit: R1 } });
  t.equal(gh.requests.length, 2);
  t.match(gh.requests[1], { status: 304, ifNoneMatch: `"${R1}"` });
  t.equal(gh.remaining, after1, 'the 304 cost nothing');

  gh.setBranch('acme', 'widget', 'main', R2);
  t.match((await h.check()).get('w'), {
    stale: true,
    git: { commit: R2, currentCommit: R1, changelog: `${REPO}/compare/${R1}...${R2}` },
    requiredRevision: R2,
  });
  t.match(gh.requests[2], { status: 200, ifNoneMatch: `"${R1}"` }, 'the stale ETag no longer matches');
  t.equal(gh.remaining, after1 - 1);
});

t.test('no ref: the default branch from GET /repos, both requests conditional', async (t) => {
  const gh = await fake(t);
  gh.setRepo('acme', 'widget', { defaultBranch: 'dev', branches: { main: R1, dev: R2 } });
  const h = await harness([gitTarget('w', 'git@github.com:acme/widget.git', { commit: R2 })], { githubApiUrl: gh.url });
  t.teardown(() => h.tw.close());
  t.match((await h.check()).get('w'), { stale: false, git: { ref: 'dev', commit: R2 } });
  t.same(gh.requests.map((r) => [r.path, r.status]), [
    ['/repos/acme/widget', 200],
    ['/repos/acme/widget/commits/heads%2Fdev', 200],
  ]);
  const before = gh.remaining;
  await h.check();
  t.same(gh.requests.slice(2).map((r) => r.status), [304, 304]);
  t.equal(gh.remaining, before);
});

t.test('one request per distinct (repository, ref) per run', async (t) => {
  const gh = await fake(t);
  gh.setRepo('acme', 'other', { branches: { main: R2 } });
  const targets = [
    ...Array.from({ length: 10 }, (_, i) => gitTarget(`main-${i}`, REPO, { ref: 'main', commit: R1 })),
    ...Array.from({ length: 5 }, (_, i) => gitTarget(`dev-${i}`, 'https://github.com/ACME/Widget', { ref: 'dev', commit: R1 })),
    ...Array.from({ length: 5 }, (_, i) => gitTarget(`other-${i}`, 'https://github.com/acme/other', { ref: 'main', commit: R2 })),
  ];
  const h = await harness(targets, { githubApiUrl: gh.url });
  t.teardown(() => h.tw.close());
  const results = await h.check();
  t.equal(results.size, 20);
  t.equal(gh.requests.length, 3, 'three distinct (repository, ref) pairs');
  t.equal([...results.values()].filter((s) => s.stale).length, 5);
});

t.test('a bare tag name: heads/ is tried first, then tags/, and the form is remembered', async (t) => {
  const gh = await fake(t);
  const h = await harness([gitTarget('w', REPO, { ref: 'v1.0', commit: T1 })], { githubApiUrl: gh.url });
  t.teardown(() => h.tw.close());
  t.match((await h.check()).get('w'), { stale: false, git: { ref: 'v1.0', commit: T1 } });
  t.same(gh.requests.map((r) => [r.path, r.status]), [
    ['/repos/acme/widget/commits/heads%2Fv1.0', 422],
    ['/repos/acme/widget/commits/tags%2Fv1.0', 200],
  ]);
  await h.check();
  t.same(gh.requests.slice(2).map((r) => [r.path, r.status]), [['/repos/acme/widget/commits/tags%2Fv1.0', 304]]);
});

t.test('exhausted rate limit: per-target errors, and no request until the reset', async (t) => {
  const gh = await fake(t);
  gh.setRepo('acme', 'other', { branches: { main: R2 } });
  gh.setRemaining(0, 600);
  const h = await harness(
    [
      gitTarget('a', REPO, { ref: 'main', commit: R1 }),
      gitTarget('b', REPO, { ref: 'main', commit: R1 }),
      gitTarget('c', 'https://github.com/acme/other', { commit: R2 }),
    ],
    { githubApiUrl: gh.url, token: 'not-checked' },
  );
  t.teardown(() => h.tw.close());
  const results = await h.check();
  for (const name of ['a', 'b', 'c']) {
    t.match(results.get(name), { source: 'git', stale: false, error: /GitHub API rate limit exhausted; no request before/ }, name);
  }
  t.equal(gh.requests.length, 1, 'requests are serial: only the first reached GitHub, the rest failed unsent');
  t.equal(gh.requests[0]?.status, 403);
  const again = await h.check();
  t.equal(gh.requests.length, 1, 'the next run does not call GitHub before the reset');
  t.match(again.get('c'), { error: /rate limit exhausted/ });
  t.same(h.registryAsked, [], 'rate-limited Git targets never fall through to the registry');
});

t.test('secondary limit: 429 with retry-after closes the gate for that long', async (t) => {
  const gh = await fake(t, { exhaustedStatus: 429, retryAfter: 120 });
  gh.setRemaining(0, 3600);
  const h = await harness([gitTarget('w', REPO, { ref: 'main', commit: R1 })], { githubApiUrl: gh.url });
  t.teardown(() => h.tw.close());
  const started = Date.now();
  const error = (await h.check()).get('w')?.error ?? '';
  const until = Date.parse(/no request before (\S+)/.exec(error)?.[1] ?? '');
  t.ok(until >= started + 119_000 && until <= Date.now() + 121_000, `retry-after honoured (${error})`);
});

t.test('a spent budget seen on a success stops further calls until the reset', async (t) => {
  const gh = await fake(t);
  gh.setRemaining(1, 900);
  const h = await harness([gitTarget('w', REPO, { ref: 'main', commit: R1 })], { githubApiUrl: gh.url });
  t.teardown(() => h.tw.close());
  t.match((await h.check()).get('w'), { stale: false, error: undefined });
  t.equal(gh.remaining, 0);
  t.match((await h.check()).get('w'), { error: /rate limit exhausted/ });
  t.equal(gh.requests.length, 1, 'the second run made no request at all');
});

t.test('token: sent to the API, opens private repositories; a bad one is reported', async (t) => {
  const gh = await FakeGitHub.start({ token: 'ghp_right' });
  t.teardown(() => gh.close());
  gh.setRepo('acme', 'secret', { branches: { main: R1 }, private: true });
  const ok = await harness([gitTarget('s', 'https://github.com/acme/secret', { commit: R1 })], { githubApiUrl: gh.url, token: 'ghp_right' });
  t.teardown(() => ok.tw.close());
  t.match((await ok.check()).get('s'), { stale: false, git: { ref: 'main', commit: R1 } });
  t.match(gh.requests[0]?.authorization, /^(token|bearer) ghp_right$/i);

  const anonymous = await harness([gitTarget('s', 'https://github.com/acme/secret', { commit: R1 })], { githubApiUrl: gh.url });
  t.teardown(() => anonymous.tw.close());
  t.match((await anonymous.check()).get('s'), { stale: false, error: /repository acme\/secret not found \(or not accessible/ });

  const bad = await harness([gitTarget('s', 'https://github.com/acme/secret', { commit: R1 })], { githubApiUrl: gh.url, token: 'ghp_wrong' });
  t.teardown(() => bad.tw.close());
  const result = (await bad.check()).get('s');
  t.match(result, { stale: false, error: /HTTP 401 \(bad credentials/ });
  t.notMatch(result?.error ?? '', /ghp_wrong/, 'the token never appears in the error');
});

t.test('no-pull GitHub targets contact nothing; unknown refs are errors', async (t) => {
  const gh = await fake(t);
  const h = await harness(
    [
      gitTarget('np', REPO, { ref: 'main', commit: R1, labels: { 'tidewatch.no-pull': '1' } }),
      gitTarget('missing', REPO, { ref: 'nope', commit: R1 }),
    ],
    { githubApiUrl: gh.url },
  );
  t.teardown(() => h.tw.close());
  const results = await h.check();
  t.match(results.get('np'), { stale: false, unchecked: true, git: { repo: REPO, ref: 'main' } });
  t.ok(gh.requests.every((r) => r.path.includes('nope')), 'only the other target reached GitHub');
  t.match(results.get('missing'), { stale: false, error: /ref "nope" not found in GitHub repository acme\/widget/ });
});

t.test('an unreachable API is a per-target error with the cause', async (t) => {
  const gh = await FakeGitHub.start();
  const url = gh.url;
  await gh.close();
  const h = await harness([gitTarget('w', REPO, { ref: 'main', commit: R1 })], { githubApiUrl: url });
  t.teardown(() => h.tw.close());
  t.match((await h.check()).get('w'), { stale: false, error: /GitHub API request failed: .*ECONNREFUSED/ });
});

t.test('a GitHub API that never answers times out per request', async (t) => {
  const hanging = createServer(() => {});
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    hanging.closeAllConnections();
    hanging.close();
  });
  const url = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  const h = await harness([gitTarget('w', REPO, { ref: 'main', commit: R1 })], { githubApiUrl: url, requestTimeoutMs: 200 });
  t.teardown(() => h.tw.close());
  t.match((await h.check()).get('w'), { stale: false, error: /GitHub API request failed: timed out after 200 ms/ });
});

t.test('logs: 304s are not errors, the token never appears, an unknown current commit is said', async (t) => {
  const gh = await fake(t);
  const logger = capturingLogger();
  const h = await harness(
    [gitTarget('w', REPO, { ref: 'main', commit: R1 }), gitTarget('no-current', REPO, { ref: 'dev' })],
    { githubApiUrl: gh.url, token: 'ghp_supersecret' },
    logger,
  );
  t.teardown(() => h.tw.close());
  const first = await h.check();
  t.match(first.get('no-current'), { stale: true, git: { commit: R2 }, requiredRevision: R2 });
  await h.check();
  t.ok(gh.requests.some((r) => r.status === 304), 'the second run was answered with 304s');
  t.same(logger.lines.filter((l) => l.level === 'error'), [], 'no error lines');
  t.notOk(logger.lines.some((l) => l.text.includes('ghp_supersecret')), 'the token is never logged');
  t.ok(logger.lines.some((l) => l.level === 'warn' && /current commit unknown/.test(l.text) && l.text.includes('no-current')));
});
