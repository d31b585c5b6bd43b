import t from 'tap';
import { changelogFor, currentCommitOf, isNoPull } from '../../../plugins/git/source.js';
import { isGitWatched } from '../../../core/index.js';
import { sameCommit } from '../../../contracts/shared/revision.js';
import { parseRepoUrl } from '../../../plugins/git/repo-url.js';
import { fakeTarget } from '../../helpers/targets.js';

const HEAD = '0123456789abcdef0123456789abcdef01234567';

t.test('the watch split: either label prefix makes a target Git-watched', async (t) => {
  t.ok(isGitWatched({ 'tidewatch.git.repo': 'https://x/y' }));
  t.ok(isGitWatched({ 'com.centurylinklabs.watchtower.git.repo': 'https://x/y' }));
  t.notOk(isGitWatched({ 'tidewatch.git.ref': 'main' }));
  t.notOk(isGitWatched({ 'tidewatch.git.repo': '  ' }), 'a blank value leaves the target registry-watched');
});

t.test('current commit: the git.commit label, else the OCI revision', async (t) => {
  const revision = { 'org.opencontainers.image.revision': 'ABCDEF1' };
  t.equal(currentCommitOf(fakeTarget('a', { labels: { 'tidewatch.git.commit': HEAD }, imageLabels: revision })), HEAD);
  t.equal(currentCommitOf(fakeTarget('a', { imageLabels: revision })), 'abcdef1', 'lower-cased');
  t.equal(currentCommitOf(fakeTarget('a', { labels: { 'tidewatch.git.commit': ' ' }, imageLabels: revision })), 'abcdef1', 'an empty label falls back');
  t.equal(currentCommitOf(fakeTarget('a')), undefined);
});

t.test('same commit: full ids, or an abbreviation of at least 7 hex digits', async (t) => {
  t.ok(sameCommit(HEAD, HEAD));
  t.ok(sameCommit(HEAD, HEAD.toUpperCase()));
  t.ok(sameCommit(HEAD, HEAD.slice(0, 7)));
  t.notOk(sameCommit(HEAD, HEAD.slice(0, 6)), 'too short to trust');
  t.notOk(sameCommit(HEAD, undefined));
  t.notOk(sameCommit(HEAD, 'f'.repeat(40)));
});

t.test('no-pull: label OR global; with label precedence a set label decides', async (t) => {
  const on = fakeTarget('a', { labels: { 'com.centurylinklabs.watchtower.no-pull': 'true' } });
  const off = fakeTarget('a', { labels: { 'tidewatch.no-pull': 'false' } });
  const unset = fakeTarget('a');
  t.ok(isNoPull(on, false, false));
  t.ok(isNoPull(off, true, false), 'OR: the global flag still applies');
  t.notOk(isNoPull(off, true, true), 'label wins');
  t.ok(isNoPull(unset, true, true), 'an unset label leaves the global flag');
  t.notOk(isNoPull(unset, false, false));
  t.ok(isNoPull(fakeTarget('a', { labels: { 'tidewatch.no-pull': 'maybe' } }), true, true), 'unparsable counts as unset');
});

t.test('changelog: GitHub compare view, commit page, or the repository page', async (t) => {
  const gh = parseRepoUrl('https://github.com/acme/widget.git');
  t.equal(changelogFor(gh, HEAD, 'abc1234'), `https://github.com/acme/widget/compare/abc1234...${HEAD}`);
  t.equal(changelogFor(gh, HEAD, undefined), `https://github.com/acme/widget/commit/${HEAD}`);
  t.equal(changelogFor(gh, HEAD, HEAD), `https://github.com/acme/widget/commit/${HEAD}`);
  t.equal(changelogFor(parseRepoUrl('http://127.0.0.1:1/team/app.git'), HEAD, 'abc1234'), 'http://127.0.0.1:1/team/app');
});
