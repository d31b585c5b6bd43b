import t from 'tap';
import { applyRequestFilters, imageMatcher, nameMatcher, splitFilterValues } from '../../core/request-filter.js';
import { fakeTarget } from '../helpers/targets.js';

t.test('container names: exact, anchored RE2, invalid pattern as literal', async (t) => {
  t.ok(nameMatcher('web')('web'));
  t.notOk(nameMatcher('web')('web-1'), 'anchored at the end');
  t.ok(nameMatcher('web-.*')('web-1'));
  t.notOk(nameMatcher('web-.*')('old-web-1'), 'anchored at the start');
  t.ok(nameMatcher('/web')('web'), 'leading slash ignored');
  t.ok(nameMatcher('a(b')('a(b'), 'invalid RE2 is an exact name');
  t.notOk(nameMatcher('a(b')('ab'));
});

t.test('RE2 semantics: a catastrophic pattern for backtracking engines stays linear', async (t) => {
  const started = Date.now();
  t.notOk(nameMatcher('(a+)+$')('a'.repeat(40) + '!'));
  t.ok(Date.now() - started < 1000);
});

t.test('image filters: untagged matches every tag, tagged only that tag', async (t) => {
  t.ok(imageMatcher('nginx')('docker.io/library/nginx:1.25'));
  t.ok(imageMatcher('nginx')('nginx'));
  t.ok(imageMatcher('nginx:1.25')('nginx:1.25'));
  t.notOk(imageMatcher('nginx:1.25')('nginx:1.26'));
  t.ok(imageMatcher('nginx:latest')('nginx'), 'an untagged container image is :latest');
  t.notOk(imageMatcher('nginx')('ghcr.io/x/nginx:1'));
  t.ok(imageMatcher('127.0.0.1:5101/demo/app')('127.0.0.1:5101/demo/app:v2'));
});

t.test('filters: repeated and comma-separated values; both kinds must match', async (t) => {
  t.same(splitFilterValues(['a,b', ' c ', '']), ['a', 'b', 'c']);
  const targets = [
    fakeTarget('web', { image: 'nginx:1' }),
    fakeTarget('db', { image: 'postgres:16' }),
    fakeTarget('cache', { image: 'nginx:2' }),
  ];
  const names = (list: { name: string }[]) => list.map((x) => x.name);
  t.same(names(applyRequestFilters(targets, { images: [], containers: [] })), ['web', 'db', 'cache']);
  t.same(names(applyRequestFilters(targets, { images: ['nginx'], containers: [] })), ['web', 'cache']);
  t.same(names(applyRequestFilters(targets, { images: ['nginx'], containers: ['cache', 'db'] })), ['cache']);
  t.same(names(applyRequestFilters(targets, { images: [], containers: ['w.*', 'db'] })), ['web', 'db']);
});

t.test('host filters: exact engine names; targets without a host never match one (docs/hosts.md)', async (t) => {
  const targets = [
    fakeTarget('web', { host: 'unix:///a.sock' }),
    fakeTarget('web', { host: 'tcp://127.0.0.1:2376' }),
    fakeTarget('other'),
  ];
  const kept = (hosts: string[], containers: string[] = []) =>
    applyRequestFilters(targets, { images: [], containers, hosts }).map((x) => `${x.host ?? '-'} ${x.name}`);
  t.same(kept(['tcp://127.0.0.1:2376']), ['tcp://127.0.0.1:2376 web']);
  t.same(kept(['unix:///a.sock', 'tcp://127.0.0.1:2376'], ['web']), ['unix:///a.sock web', 'tcp://127.0.0.1:2376 web']);
  t.same(kept(['tcp://127.0.0.1']), [], 'not a prefix match');
  t.same(kept([]), ['unix:///a.sock web', 'tcp://127.0.0.1:2376 web', '- other']);
});
