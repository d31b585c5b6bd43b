import t from 'tap';
import { RepoUrlError, parseRepoUrl } from '../../../plugins/git/repo-url.js';

t.test('github.com in every spelling people use goes to the API path', async (t) => {
  for (const label of [
    'https://github.com/Acme/Widget',
    'https://github.com/Acme/Widget.git',
    'https://github.com/Acme/Widget/',
    'http://www.github.com/Acme/Widget',
    'git@github.com:Acme/Widget.git',
    'ssh://git@github.com/Acme/Widget.git',
    'github.com/Acme/Widget',
    'https://token:x-oauth@github.com/Acme/Widget.git',
  ]) {
    const repo = parseRepoUrl(label);
    t.equal(repo.kind, 'github', label);
    if (repo.kind !== 'github') continue;
    t.equal(repo.owner, 'Acme');
    t.equal(repo.name, 'Widget');
    t.equal(repo.page, 'https://github.com/Acme/Widget');
    t.equal(repo.key, 'github:acme/widget', 'case-insensitive key');
    t.notMatch(repo.display, /x-oauth/, 'credentials never reported');
  }
});

t.test('other hosts use smart HTTP; credentials are split off and never reported', async (t) => {
  const repo = parseRepoUrl('http://bob:s3cr%40t@127.0.0.1:8080/team/app.git/');
  t.equal(repo.kind, 'smart-http');
  if (repo.kind !== 'smart-http') return;
  t.equal(repo.url, 'http://127.0.0.1:8080/team/app.git');
  t.equal(repo.display, 'http://127.0.0.1:8080/team/app.git');
  t.equal(repo.page, 'http://127.0.0.1:8080/team/app');
  t.same(repo.credentials, { username: 'bob', password: 's3cr@t' });
  t.notMatch(repo.key, /s3cr/);
  const plain = parseRepoUrl('https://gitlab.example/team/app');
  t.equal(plain.page, 'https://gitlab.example/team/app');
  t.equal(plain.kind === 'smart-http' && plain.credentials, undefined);
});

t.test('unusable labels are refused with a reason', async (t) => {
  t.throws(() => parseRepoUrl('  '), RepoUrlError);
  t.throws(() => parseRepoUrl('git@gitlab.example:team/app.git'), /SSH remotes are not supported/);
  t.throws(() => parseRepoUrl('ssh://git@gitlab.example/team/app.git'), /only http\(s\)/);
  t.throws(() => parseRepoUrl('https://github.com/only-owner'), /not a GitHub repository URL/);
});
